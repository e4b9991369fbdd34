// Plural forms by the language's rule, named in its language.json ("plural"):
// "1 punto", "2 punti"; French counts 0 and 1.5 as singular ("0 point"). A rule picks the
// form's category; the dictionary's `KEY.CATEGORY` is read where it has one. No imports,
// so Node can test it alone.

/** The rules a language.json may name (docs/languages.md, "UI strings and serving"). "cldr:LOCALE" uses the
 *  browser's Intl.PluralRules for LOCALE (few, many, ... for languages that need them). */
export const RULES = {
  // one for exactly 1, other for the rest (Italian, English, Spanish).
  one_other: (n) => (Math.abs(n) === 1 ? "one" : "other"),
  // one below 2, 0 and 1.5 included (French).
  one_includes_zero: (n) => (Math.abs(n) < 2 ? "one" : "other"),
  // no plural forms (the key alone).
  none: () => "other",
};

const intl = {};

function category(rule, n) {
  if (RULES[rule]) return RULES[rule](n);
  if (typeof rule === "string" && rule.startsWith("cldr:")) {
    const locale = rule.slice(5);
    try {
      intl[locale] ??= new Intl.PluralRules(locale);
      return intl[locale].select(n);
    } catch {
      return "other";
    }
  }
  return "other";
}

/** The key to read for `params.n` under plural `rule`: `KEY.CATEGORY` (e.g.
 *  `evening.points.one`) when the dictionary `dict` has that form, else `key` itself. */
export function pluralKey(dict, rule, key, params = {}) {
  const n = params.n;
  if (typeof n !== "number" || !Number.isFinite(n)) return key;
  const form = `${key}.${category(rule, n)}`;
  return dict && form in dict ? form : key;
}
