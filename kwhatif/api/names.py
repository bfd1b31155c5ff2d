"""Kubernetes name checks (apimachinery `util/validation`): `IsQualifiedName` (label keys,
resource names), `IsDNS1123Subdomain` (their prefixes; objects' names), `IsDNS1123Label`
(namespaces, containers), `IsDNS1035Label` (Services), `IsValidLabelValue` and `IsValidPortName`, with apimachinery's own messages.

One implementation for every layer that judges a name: the loader (label keys and values of
objects), the configuration (plugin arguments) and the api model (extended resources, selector
values). Each check returns the list of messages Go returns, empty when the name is valid: the
configuration reports them all, the loader its first. Lengths count bytes, as Go's `len()` does
(the patterns admit only ASCII, so a longer-than-allowed non-ASCII name gets the length message
first, as upstream). Results are cached: the same keys are judged over and over.
"""

from __future__ import annotations

import re
from functools import lru_cache

QUALIFIED_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
QUALIFIED_NAME_MSG = ("must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
                      "alphanumeric character")
_QUALIFIED_NAME = re.compile(f"^{QUALIFIED_NAME_FMT}$")
QUALIFIED_NAME_MAX_LENGTH = 63
_DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_DNS1123_LABEL = re.compile(f"^{_DNS1123_LABEL_FMT}$")
DNS1123_LABEL_MSG = ("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must "
                     "start and end with an alphanumeric character")
DNS1123_LABEL_MAX_LENGTH = 63
DNS1123_SUBDOMAIN_FMT = _DNS1123_LABEL_FMT + "(\\." + _DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN = re.compile(f"^{DNS1123_SUBDOMAIN_FMT}$")
DNS1123_SUBDOMAIN_MSG = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "
                         "'.', and must start and end with an alphanumeric character")
DNS1123_SUBDOMAIN_MAX_LENGTH = 253
_DNS1035_LABEL_FMT = "[a-z]([-a-z0-9]*[a-z0-9])?"
_DNS1035_LABEL = re.compile(f"^{_DNS1035_LABEL_FMT}$")
DNS1035_LABEL_MSG = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
                     "alphabetic character, and end with an alphanumeric character")
LABEL_VALUE_FMT = f"({QUALIFIED_NAME_FMT})?"
_LABEL_VALUE = re.compile(f"^{LABEL_VALUE_FMT}$")
LABEL_VALUE_MSG = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
                   "and must start and end with an alphanumeric character")
LABEL_VALUE_MAX_LENGTH = 63


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """validation.RegexError: the message, the examples and the pattern."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    return msg + " (e.g. " + "".join(("" if i == 0 else " or ") + f"'{e}', " for i, e in enumerate(examples)) + \
        f"regex used for validation is '{fmt}')"


def max_len_error(length: int) -> str:
    """validation.MaxLenError."""
    return f"must be no more than {length} characters"


def _fullmatch(pattern: re.Pattern[str], text: str) -> bool:
    """Go's `^...$` (no multiline): `$` matches at the very end only, never before a newline."""
    return pattern.match(text) is not None and "\n" not in text


def _length_and_pattern(value: str, limit: int, pattern: re.Pattern[str], regex_message: str) -> tuple[str, ...]:
    """Go's checks of a name against a length (in bytes) and a pattern, in their order."""
    errs = []
    if len(value.encode()) > limit:
        errs.append(max_len_error(limit))
    if not _fullmatch(pattern, value):
        errs.append(regex_message)
    return tuple(errs)


@lru_cache(maxsize=4096)
def is_dns1123_label(value: str) -> tuple[str, ...]:
    """validation.IsDNS1123Label (a namespace's name, a container's)."""
    return _length_and_pattern(value, DNS1123_LABEL_MAX_LENGTH, _DNS1123_LABEL,
                               regex_error(DNS1123_LABEL_MSG, _DNS1123_LABEL_FMT, "my-name", "123-abc"))


@lru_cache(maxsize=1024)
def is_dns1035_label(value: str) -> tuple[str, ...]:
    """validation.IsDNS1035Label (a Service's name)."""
    return _length_and_pattern(value, DNS1123_LABEL_MAX_LENGTH, _DNS1035_LABEL,
                               regex_error(DNS1035_LABEL_MSG, _DNS1035_LABEL_FMT, "my-name", "abc-123"))


@lru_cache(maxsize=4096)
def is_dns1123_subdomain(value: str) -> tuple[str, ...]:
    """validation.IsDNS1123Subdomain."""
    return _length_and_pattern(value, DNS1123_SUBDOMAIN_MAX_LENGTH, _DNS1123_SUBDOMAIN,
                               regex_error(DNS1123_SUBDOMAIN_MSG, DNS1123_SUBDOMAIN_FMT, "example.com"))


@lru_cache(maxsize=4096)
def is_qualified_name(value: str) -> tuple[str, ...]:
    """validation.IsQualifiedName: an optional DNS subdomain prefix and a name."""
    errs: list[str] = []
    parts = value.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part must be non-empty")
        else:
            errs.extend("prefix part " + m for m in is_dns1123_subdomain(prefix))
    else:
        return ("a qualified name " + regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name",
                                                  "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",)
    if not name:
        errs.append("name part must be non-empty")
    elif len(name.encode()) > QUALIFIED_NAME_MAX_LENGTH:
        errs.append("name part " + max_len_error(QUALIFIED_NAME_MAX_LENGTH))
    if not _fullmatch(_QUALIFIED_NAME, name):
        errs.append("name part " + regex_error(QUALIFIED_NAME_MSG, QUALIFIED_NAME_FMT, "MyName", "my.name",
                                               "123-abc"))
    return tuple(errs)


@lru_cache(maxsize=4096)
def is_valid_label_value(value: str) -> tuple[str, ...]:
    """validation.IsValidLabelValue."""
    return _length_and_pattern(value, LABEL_VALUE_MAX_LENGTH, _LABEL_VALUE,
                               regex_error(LABEL_VALUE_MSG, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))


_PORT_NAME_CHARSET = re.compile("^[-a-z0-9]+$")
PORT_NAME_MAX_LENGTH = 15


@lru_cache(maxsize=1024)
def is_valid_port_name(port: str) -> tuple[str, ...]:
    """validation.IsValidPortName (an IANA service name: a container's port, a Service's)."""
    errs = []
    if len(port.encode()) > PORT_NAME_MAX_LENGTH:
        errs.append(max_len_error(PORT_NAME_MAX_LENGTH))
    if not _fullmatch(_PORT_NAME_CHARSET, port):
        errs.append("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)")
    if not re.search("[a-z]", port):
        errs.append("must contain at least one letter (a-z)")
    if "--" in port:
        errs.append("must not contain consecutive hyphens")
    if port[:1] == "-" or port[-1:] == "-":
        errs.append("must not begin or end with a hyphen")
    return tuple(errs)
