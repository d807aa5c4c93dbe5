"""Attendees' accounts: sign-up, log-in and its limits, the account page, mail settings and the
signed links the site mails (verify an address, unsubscribe)."""
