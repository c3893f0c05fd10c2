"""In-app notifications (the bell): replies to your comments and new comments in threads you follow."""
