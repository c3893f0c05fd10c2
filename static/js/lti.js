// Deep Linking answer: send the signed choice back to the LMS at once (the button stays for a
// browser without scripts). / 딥 링킹 응답: 고른 항목을 바로 LMS로 보내요 (스크립트가 없는 브라우저를 위해 버튼은 그대로 둬요).
document.querySelectorAll("form[data-auto-submit]").forEach((form) => form.submit());
