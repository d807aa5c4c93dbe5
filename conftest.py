import os

# The suite runs with production settings (debug off), which require a secret key.
os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-secret-key")
