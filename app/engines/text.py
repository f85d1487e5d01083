"""Markers for the English texts an engine shows to people, so the catalogs can
translate them (DESIGN: engines are pure; translation happens at the edge).

An engine keeps writing English: its log and its prompts are the game's record,
and the designers' reports read them. But every sentence it builds is built from a
*template* marked here, with named fields, e.g.

    N_("{name} reveals {card}.").format(name=..., card=...)

`pybabel extract` (scripts/i18n) collects the templates into the game's catalog,
and app/i18n translates a finished English sentence for a reader of another
language by matching it against those templates (the fields are translated too
when they are themselves catalog texts, such as a card's name).
"""
from __future__ import annotations


def N_(template: str) -> str:
    """An English template for the catalogs; returns it unchanged."""
    return template


def NP_(singular: str, plural: str, n: int) -> str:
    """The English template for `n` things (one, or many), marked as a plural pair so the
    catalogs can hold each language's plural forms."""
    return singular if n == 1 else plural
