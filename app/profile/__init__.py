"""A learner's profile (routes: the /{lang}/profile pages): what they have done across the site and
their account's settings. It builds on app.accounts and on the features it shows; none of them
imports it."""
