// Forms that should go on by themselves: the Deep Linking answer to the LMS, and a launch that already
// has its own window (the button stays for a browser without scripts).
// 스스로 제출되는 폼이에요: LMS로 보내는 딥 링킹 응답, 그리고 이미 자기 창이 있는 실행이에요
// (스크립트가 없는 브라우저를 위해 버튼은 그대로 둬요).
document.querySelectorAll("form[data-auto-submit]").forEach((form) => form.submit());
