"""Password hashing (argon2id through pwdlib) and the rules a new password must meet."""
from __future__ import annotations

import unicodedata
from functools import lru_cache

from pwdlib import PasswordHash
from pwdlib.hashers.argon2 import Argon2Hasher

MIN_LENGTH = 10
MAX_LENGTH = 256  # argon2 accepts more; a cap keeps a hash from being a denial-of-service lever

# A few of the most common passwords that are long enough to pass the length rule.
COMMON = frozenset({
    "1234567890", "12345678910", "0123456789", "qwertyuiop", "password12", "password123", "passw0rd12",
    "iloveyou12", "qwerty1234", "1q2w3e4r5t", "abcdefghij", "aaaaaaaaaa", "letmein123", "welcome123",
    "administrator", "qwertyuiop1", "asdfghjkl1", "zxcvbnm123", "1111111111", "0000000000",
})


@lru_cache(maxsize=1)
def hasher() -> PasswordHash:
    return PasswordHash((Argon2Hasher(),))


def normalize(password: str) -> str:
    # NFC so the same password typed on two keyboards (composed vs decomposed Hangul) matches
    return unicodedata.normalize("NFC", password)


def hash_password(password: str) -> str:
    return hasher().hash(normalize(password))


def verify_password(password: str, stored_hash: str) -> tuple[bool, str | None]:
    """(valid, new hash if the stored one should be upgraded to current parameters)."""
    try:
        return hasher().verify_and_update(normalize(password), stored_hash)
    except Exception:  # a corrupt hash is a failed sign-in, never a 500
        return False, None


# A valid hash of a random password: verifying against it when the user does not exist makes
# "no such user" take as long as "wrong password" (no username probing by timing).
@lru_cache(maxsize=1)
def dummy_hash() -> str:
    return hash_password("not-a-real-password-" + "x" * 16)


def password_problem(password: str, username: str) -> str | None:
    """An error code for a weak password, or None."""
    if not password:
        return "password_empty"
    password = normalize(password)
    if len(password) > MAX_LENGTH:
        return "password_too_long"
    if len(password) < MIN_LENGTH:
        return "password_too_short"
    lowered = password.casefold()
    if lowered in COMMON or len(set(lowered)) < 4:
        return "password_common"
    if username and username.casefold() in lowered:
        return "password_has_username"
    return None
