"""The one way a URL is shown: without its secrets (docs/cli.md#secrets-in-urls).

Every URL toolpatch prints, in any report, error, diff header or progress line, goes through
`redacted` once, where the input it names is made (an object's `Source` name, a store's): a
store URL (``langgraph+postgresql://bob:pw@db/app``), an object URL (``s3://…``), and a URL
toolpatch refuses to read (``http://alice:pw@host/x.json``) alike. A message that may quote
the URL or its secrets (a driver's, a store's, fsspec's) goes through `without_secrets`.

A URL's secrets are its password (``user:PASSWORD@``, as pip's ``redact_auth_from_url``
hides it: the user name stays, it tells whose access failed) and the values of its query
parameters whose name says they are one (``password``, ``sslpassword``, ``token``, a presigned
URL's ``X-Amz-Signature`` and ``X-Amz-Credential``, an Azure SAS's ``sig``).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

#: What a URL's secrets are shown as.
HIDDEN = "***"
#: Query parameters whose value is a secret, by a word in their name (case aside).
SECRET_WORDS = ("password", "secret", "token", "signature", "sig", "credential", "key")


def redacted(url: str) -> str:
    """``url`` as toolpatch shows it: its password and secret query parameters as ``***``.

    >>> redacted("langgraph+postgresql://bob:pw@db:5432/app?sslpassword=k&sslmode=require")
    'langgraph+postgresql://bob:***@db:5432/app?sslpassword=***&sslmode=require'
    >>> redacted("http://alice:S3cretPw@host/x.json?X-Amz-Signature=f00")
    'http://alice:***@host/x.json?X-Amz-Signature=***'
    """
    scheme, sep, rest = url.partition("://")
    user, password, host, after = _split(rest)
    if password is not None:
        rest = f"{user}:{HIDDEN}@{host}{after}"
    address, question, query = rest.partition("?")
    if not question:
        return f"{scheme}{sep}{rest}"
    pairs = []
    for pair in query.split("&"):
        name, equals, value = pair.partition("=")
        pairs.append(f"{name}={HIDDEN}" if equals and value and _secret(name) else pair)
    return f"{scheme}{sep}{address}?{'&'.join(pairs)}"


def without_secrets(text: str, url: str) -> str:
    """``text`` (a driver's or a store's message) with ``url`` and each of its secrets hidden:
    an error can quote the URL it was given, or a part of it. A secret is hidden where it
    stands as a word of its own (not inside a longer run of letters and digits): a password
    ``p`` once made ``port`` and ``accepting`` into ``***ort`` and ``acce***ting``.

    >>> without_secrets('to "db", port 1 failed for user "u" (p)', "postgresql://u:p@db:1/x")
    'to "db", port 1 failed for user "u" (***)'
    """
    text = text.replace(url, redacted(url))
    secrets = sorted(_secrets(url), key=len, reverse=True)
    if not secrets:
        return text
    words = "|".join(re.escape(secret) for secret in secrets)
    return re.sub(rf"(?<![^\W_])(?:{words})(?![^\W_])", HIDDEN, text)


def _secrets(url: str) -> set[str]:
    """The password and secret parameter values of ``url``, as written and decoded."""
    found: set[str] = set()
    _, _, rest = url.partition("://")
    password = _split(rest)[1]
    if password:
        found |= {password, unquote(password)}
    for pair in rest.partition("?")[2].split("&"):
        name, equals, value = pair.partition("=")
        if equals and value and _secret(name):
            found |= {value, unquote(value)}
    return {secret for secret in found if secret}


def _split(rest: str) -> tuple[str, str | None, str, str]:
    """A URL after its ``scheme://``: the user, the password (``None``: none given), the host
    (and port) and what follows them. Only the authority (up to the first ``/``, ``?`` or ``#``,
    RFC 3986) holds them: an ``@`` or ``:`` in an object's name is not a password."""
    end = min((i for i in (rest.find(c) for c in "/?#") if i >= 0), default=len(rest))
    authority, after = rest[:end], rest[end:]
    userinfo, at, host = authority.rpartition("@")
    user, colon, password = userinfo.partition(":")
    if not (at and colon):
        return user, None, host if at else authority, after
    return user, password, host, after


def _secret(name: str) -> bool:
    """Whether a query parameter's value is a secret, by its name."""
    return any(word in name.lower() for word in SECRET_WORDS)
