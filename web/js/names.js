// Display names for players, roles, powers and facts (role names depend on the preset).

import { has, t } from "./i18n.js";
import { playerById } from "./state.js";

export function nameOf(pid) {
  return playerById(pid)?.name || "?";
}

export function roleName(role, preset) {
  if (!role) return t("role.unknown");
  const key = `role.${preset}.${role}`;
  return has(key) ? t(key) : (has(`role.${role}`) ? t(`role.${role}`) : role);
}

export function powerName(power) {
  if (!power) return t("power.none");
  return has(`power.${power}`) ? t(`power.${power}`) : power;
}

export function factText(fact) {
  const key = `fact.${fact.fact}`;
  return has(key) ? t(key, { name: nameOf(fact.player) }) : `${nameOf(fact.player)}: ${fact.fact}`;
}
