"""Defaults of the mail relay, overridable from the environment."""

SMTP_PORT = 25
SUBMISSION_PORT = 578
MAX_RECIPIENTS = 100
