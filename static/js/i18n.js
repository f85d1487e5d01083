// The browser's translations, from the same gettext catalogs as the server's pages.
// The page loads /i18n/<lang>.js (a classic script, before any module) which sets
// window.CG_I18N = {lang, forms: {CLDR plural category: form index}, messages: {English:
// translation or [forms...]}}; a page without it speaks English. Texts are written in English in
// the code, with named fields: t("Waiting for {name}.", {name}). Keep the English a
// plain "double-quoted" literal, so `pybabel extract` (scripts/i18n) finds it.
const I18N = globalThis.CG_I18N || { lang: "en", messages: {} };
// The catalog's form for each CLDR plural category (the server works it out: this page
// may not evaluate the catalog's own expression), chosen by the browser's Intl.PluralRules.
const rules = I18N.forms ? new Intl.PluralRules(I18N.lang) : null;
const pluralIndex = (n) => {
  const form = rules ? I18N.forms[rules.select(n)] : undefined;
  return form === undefined ? (n === 1 ? 0 : 1) : form;
};

function fill(text, fields) {
  if (!fields) return text;
  return text.replace(/\{(\w+)\}/g, (whole, key) => (key in fields ? String(fields[key]) : whole));
}

/** The page's language ("en", "es", ...). */
export const lang = () => I18N.lang || "en";

/** `english` in the page's language, its {fields} filled in. */
export function t(english, fields) {
  const found = I18N.messages[english];
  return fill(typeof found === "string" && found ? found : english, fields);
}

/** One of two English forms by `n` ("{n} card", "{n} cards"), in the page's language with
 * its own plural rule; {n} and the other fields filled in. */
export function tn(one, many, n, fields = {}) {
  const forms = I18N.messages[one];
  const all = { n, ...fields };
  if (Array.isArray(forms) && forms.length) {
    const form = forms[Math.min(pluralIndex(n), forms.length - 1)];
    if (form) return fill(form, all);
  }
  return fill(n === 1 ? one : many, all);
}

/** A number as the page's language writes it (1,234.5 / 1.234,5). */
export const number = (n) => new Intl.NumberFormat(lang()).format(n);
