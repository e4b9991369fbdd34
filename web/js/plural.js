// Plural forms by the language's own rules (Intl.PluralRules): "1 punto", "2 punti";
// French counts 0 and 1 as singular ("0 point"). No imports, so Node can test it alone.

const rules = {};

/** The key to read for `params.n` in `lang`: `KEY.CATEGORY` (e.g. `evening.points.one`)
 *  when the dictionary `dict` has that form, else `key` itself (the "other" form). */
export function pluralKey(dict, lang, key, params = {}) {
  const n = params.n;
  if (typeof n !== "number" || !Number.isFinite(n)) return key;
  let pr = rules[lang];
  if (!pr) {
    try { pr = rules[lang] = new Intl.PluralRules(lang); } catch { return key; }
  }
  const form = `${key}.${pr.select(n)}`;
  return dict && form in dict ? form : key;
}
