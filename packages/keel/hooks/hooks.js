// plugin.json
var plugin_default = {
  $comment: "The template manifest: build.mjs writes packages/<pkg>/.claude-plugin/plugin.json from it, and the bundle imports it for the profiles and the option fields. One home for both.",
  version: "0.1.0",
  author: { name: "keel contributors" },
  license: "MIT",
  keywords: ["compaction", "checkpoint", "long-sessions", "mod"],
  engines: { "claude-code": ">=2.1.328" },
  precedence: ["keel", "superheroes", "ws"],
  packages: {
    keel: {
      displayName: "keel",
      description: "keel keeps long Claude Code sessions on course: every feature of the bundle, each turned on or off in /config.",
      features: {}
    },
    superheroes: {
      displayName: "superheroes",
      description: "Checkpoint notes that survive compaction: steers every summary with the session's charter and notes, checkpoints before the harness compacts, and resumes after.",
      features: {}
    },
    ws: {
      displayName: "ws",
      description: "Workflow levers for long sessions: compaction timing, the harness window, MCP reconnect and tool-call captions.",
      features: {}
    }
  },
  features: {}
};

// src/features/index.ts
var FEATURES = [];

// src/lib/claims.ts
function parseClaim(raw, session) {
  if (!raw) return void 0;
  try {
    const parsed = JSON.parse(raw);
    if (parsed.session !== session || !Array.isArray(parsed.features)) return void 0;
    return parsed.features.filter((f) => typeof f === "string");
  } catch {
    return void 0;
  }
}
function claimText(session, features) {
  return JSON.stringify({ session, features });
}
async function publishClaims($, session, features) {
  const text = claimText(session, features);
  switch ($.plugin.name) {
    case "keel":
      await $.env.set("KEEL_CLAIMS_KEEL", text);
      return;
    case "superheroes":
      await $.env.set("KEEL_CLAIMS_SUPERHEROES", text);
      return;
    case "ws":
      await $.env.set("KEEL_CLAIMS_WS", text);
      return;
  }
}
async function rawClaim($, pkg) {
  switch (pkg) {
    case "keel":
      return $.env.get("KEEL_CLAIMS_KEEL");
    case "superheroes":
      return $.env.get("KEEL_CLAIMS_SUPERHEROES");
    case "ws":
      return $.env.get("KEEL_CLAIMS_WS");
    default:
      return void 0;
  }
}
async function readClaims($, session, pkgs) {
  const raws = await Promise.all(pkgs.map((pkg) => rawClaim($, pkg)));
  return Object.fromEntries(pkgs.map((pkg, i) => [pkg, parseClaim(raws[i], session)]));
}

// src/lib/port.ts
function portOf($) {
  return {
    pkg: $.plugin.name,
    log: (line) => $.ui.log(line, { to: "debug" }),
    registerCommand: (spec) => $.command.register(spec),
    sessionId: () => $.session.id(),
    publishClaims: (session, features) => publishClaims($, session, features),
    readClaims: (session, pkgs) => readClaims($, session, pkgs)
  };
}

// src/lib/activation.ts
function allFields(template) {
  const fields = {};
  for (const [name, def] of Object.entries(template.features)) {
    fields[name] = { type: "boolean", title: def.title, description: def.description, default: false };
    Object.assign(fields, def.userConfig);
  }
  return fields;
}
function activationOf(template, raw, pkg, feature, on) {
  if (!(feature in raw)) return { feature, carried: false, on: false, why: "not carried" };
  const profileDefault = pkg === void 0 ? void 0 : template.packages[pkg]?.features[feature];
  return { feature, carried: true, on, why: profileDefault === on ? "profile" : "option" };
}
function ownerOf(feature, precedence, pkg, claims) {
  const rank = (name) => {
    const at = precedence.indexOf(name);
    return at < 0 ? precedence.length : at;
  };
  let owner = pkg;
  for (const [other, features] of Object.entries(claims)) {
    if (other !== pkg && features?.includes(feature) && rank(other) < rank(owner)) owner = other;
  }
  return owner;
}
function ranksAbove(precedence, pkg) {
  const at = precedence.indexOf(pkg);
  return at < 0 ? [...precedence] : precedence.slice(0, at);
}

// src/lib/command.ts
var STATUS_VERB = "status";
function parseCommandArgs(args) {
  const trimmed = args.trim();
  const space = trimmed.search(/\s/);
  if (space < 0) return { verb: trimmed.toLowerCase() || STATUS_VERB, rest: "" };
  return { verb: trimmed.slice(0, space).toLowerCase(), rest: trimmed.slice(space + 1).trim() };
}
function unknownVerb(pkg, verb, usages) {
  return `/${pkg}: unknown verb "${verb}". Usage:
${usages.map((u) => `  /${pkg} ${u}`).join("\n")}`;
}
function stateOf(row) {
  if (!row.carried) return "not carried";
  if (!row.on) return `off (${row.why})`;
  if (row.yieldsTo) return `on (${row.why}), yields to ${row.yieldsTo}, which runs it in this session`;
  return `runs (${row.why})`;
}
function formatStatus(pkg, version, rows, problems) {
  const out = [`${pkg} ${version}`];
  const carried = rows.filter((r) => r.carried);
  if (carried.length === 0) out.push("No features are carried by this package.");
  for (const row of carried) {
    out.push(`${row.feature}: ${stateOf(row)}`);
    const options = Object.entries(row.options).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    if (options.length) out.push(`  options: ${options.join(", ")}`);
    if (row.skips) out.push(`  skipped hooks: ${row.skips}`);
    for (const line of row.lines) out.push(`  ${line}`);
  }
  const totalSkips = rows.reduce((n, r) => n + r.skips, 0);
  out.push(`Skipped hooks: ${totalSkips === 0 ? "none" : rows.filter((r) => r.skips).map((r) => `${r.feature} ${r.skips}`).join(", ")}`);
  for (const problem of problems) out.push(`Problem: ${problem}`);
  return out.join("\n");
}

// ../../work/main/node_modules/valibot/dist/index.mjs
var store$4;
var DEFAULT_CONFIG = {
  lang: void 0,
  message: void 0,
  abortEarly: void 0,
  abortPipeEarly: void 0
};
// @__NO_SIDE_EFFECTS__
function getGlobalConfig(config$1) {
  if (!config$1 && !store$4) return DEFAULT_CONFIG;
  return {
    lang: config$1?.lang ?? store$4?.lang,
    message: config$1?.message,
    abortEarly: config$1?.abortEarly ?? store$4?.abortEarly,
    abortPipeEarly: config$1?.abortPipeEarly ?? store$4?.abortPipeEarly
  };
}
var store$3;
// @__NO_SIDE_EFFECTS__
function getGlobalMessage(lang) {
  return store$3?.get(lang);
}
var store$2;
// @__NO_SIDE_EFFECTS__
function getSchemaMessage(lang) {
  return store$2?.get(lang);
}
var store$1;
// @__NO_SIDE_EFFECTS__
function getSpecificMessage(reference, lang) {
  return store$1?.get(reference)?.get(lang);
}
// @__NO_SIDE_EFFECTS__
function _stringify(input) {
  const type = typeof input;
  if (type === "string") return `"${input}"`;
  if (type === "number" || type === "bigint" || type === "boolean") return `${input}`;
  if (type === "object" || type === "function") return (input && Object.getPrototypeOf(input)?.constructor?.name) ?? "null";
  return type;
}
function _addIssue(context, label, dataset, config$1, other) {
  const input = other && "input" in other ? other.input : dataset.value;
  const expected = other?.expected ?? context.expects ?? null;
  const received = other?.received ?? /* @__PURE__ */ _stringify(input);
  const issue = {
    kind: context.kind,
    type: context.type,
    input,
    expected,
    received,
    message: `Invalid ${label}: ${expected ? `Expected ${expected} but r` : "R"}eceived ${received}`,
    requirement: context.requirement,
    path: other?.path,
    issues: other?.issues,
    lang: config$1.lang,
    abortEarly: config$1.abortEarly,
    abortPipeEarly: config$1.abortPipeEarly
  };
  const isSchema = context.kind === "schema";
  const message$1 = other?.message ?? context.message ?? /* @__PURE__ */ getSpecificMessage(context.reference, issue.lang) ?? (isSchema ? /* @__PURE__ */ getSchemaMessage(issue.lang) : null) ?? config$1.message ?? /* @__PURE__ */ getGlobalMessage(issue.lang);
  if (message$1 !== void 0) issue.message = typeof message$1 === "function" ? message$1(issue) : message$1;
  if (isSchema) dataset.typed = false;
  if (dataset.issues) dataset.issues.push(issue);
  else dataset.issues = [issue];
}
// @__NO_SIDE_EFFECTS__
function _joinExpects(values$1, separator) {
  const list = [...new Set(values$1)];
  if (list.length > 1) return `(${list.join(` ${separator} `)})`;
  return list[0] ?? "never";
}
function _standardSchema(schema) {
  schema["~standard"] = {
    version: 1,
    vendor: "valibot",
    validate: (value$1) => schema["~run"]({ value: value$1 }, /* @__PURE__ */ getGlobalConfig())
  };
  return schema;
}
// @__NO_SIDE_EFFECTS__
function finite(message$1) {
  return {
    kind: "validation",
    type: "finite",
    reference: finite,
    async: false,
    expects: null,
    requirement: Number.isFinite,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !this.requirement(dataset.value)) _addIssue(this, "finite", dataset, config$1);
      return dataset;
    }
  };
}
// @__NO_SIDE_EFFECTS__
function maxValue(requirement, message$1) {
  return {
    kind: "validation",
    type: "max_value",
    reference: maxValue,
    async: false,
    expects: `<=${requirement instanceof Date ? requirement.toJSON() : /* @__PURE__ */ _stringify(requirement)}`,
    requirement,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !(dataset.value <= this.requirement)) _addIssue(this, "value", dataset, config$1, { received: dataset.value instanceof Date ? dataset.value.toJSON() : /* @__PURE__ */ _stringify(dataset.value) });
      return dataset;
    }
  };
}
// @__NO_SIDE_EFFECTS__
function minValue(requirement, message$1) {
  return {
    kind: "validation",
    type: "min_value",
    reference: minValue,
    async: false,
    expects: `>=${requirement instanceof Date ? requirement.toJSON() : /* @__PURE__ */ _stringify(requirement)}`,
    requirement,
    message: message$1,
    "~run"(dataset, config$1) {
      if (dataset.typed && !(dataset.value >= this.requirement)) _addIssue(this, "value", dataset, config$1, { received: dataset.value instanceof Date ? dataset.value.toJSON() : /* @__PURE__ */ _stringify(dataset.value) });
      return dataset;
    }
  };
}
// @__NO_SIDE_EFFECTS__
function boolean(message$1) {
  return _standardSchema({
    kind: "schema",
    type: "boolean",
    reference: boolean,
    expects: "boolean",
    async: false,
    message: message$1,
    "~run"(dataset, config$1) {
      if (typeof dataset.value === "boolean") dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
// @__NO_SIDE_EFFECTS__
function number(message$1) {
  return _standardSchema({
    kind: "schema",
    type: "number",
    reference: number,
    expects: "number",
    async: false,
    message: message$1,
    "~run"(dataset, config$1) {
      if (typeof dataset.value === "number" && !isNaN(dataset.value)) dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
// @__NO_SIDE_EFFECTS__
function picklist(options, message$1) {
  return _standardSchema({
    kind: "schema",
    type: "picklist",
    reference: picklist,
    expects: /* @__PURE__ */ _joinExpects(options.map(_stringify), "|"),
    async: false,
    options,
    message: message$1,
    "~run"(dataset, config$1) {
      if (this.options.includes(dataset.value)) dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
// @__NO_SIDE_EFFECTS__
function string(message$1) {
  return _standardSchema({
    kind: "schema",
    type: "string",
    reference: string,
    expects: "string",
    async: false,
    message: message$1,
    "~run"(dataset, config$1) {
      if (typeof dataset.value === "string") dataset.typed = true;
      else _addIssue(this, "type", dataset, config$1);
      return dataset;
    }
  });
}
// @__NO_SIDE_EFFECTS__
function pipe(...pipe$1) {
  return _standardSchema({
    ...pipe$1[0],
    pipe: pipe$1,
    "~run"(dataset, config$1) {
      for (const item of pipe$1) if (item.kind !== "metadata") {
        if (dataset.issues && (item.kind === "schema" || item.kind === "transformation")) {
          dataset.typed = false;
          break;
        }
        if (!dataset.issues || !config$1.abortEarly && !config$1.abortPipeEarly) dataset = item["~run"](dataset, config$1);
      }
      return dataset;
    }
  });
}
// @__NO_SIDE_EFFECTS__
function safeParse(schema, input, config$1) {
  const dataset = schema["~run"]({ value: input }, /* @__PURE__ */ getGlobalConfig(config$1));
  return {
    typed: dataset.typed,
    success: !dataset.issues,
    output: dataset.value,
    issues: dataset.issues
  };
}

// src/lib/options.ts
function schemaOf(field) {
  switch (field.type) {
    case "boolean":
      return boolean();
    case "number": {
      const checks = [finite()];
      if (field.min !== void 0) checks.push(minValue(field.min));
      if (field.max !== void 0) checks.push(maxValue(field.max));
      return pipe(number(), ...checks);
    }
    case "string":
      return field.options ? picklist(field.options) : string();
  }
}
function fallbackOf(field) {
  if (field.default !== void 0) return field.default;
  return field.type === "boolean" ? false : field.type === "number" ? 0 : "";
}
function parseOptions(fields, raw) {
  const values = {};
  const problems = [];
  for (const [key, field] of Object.entries(fields)) {
    const given = raw[key];
    if (given === void 0) {
      values[key] = fallbackOf(field);
      continue;
    }
    const checked = safeParse(schemaOf(field), given);
    if (checked.success) {
      values[key] = checked.output;
    } else {
      values[key] = fallbackOf(field);
      problems.push(`option ${key}: ${JSON.stringify(given)} is not valid (${checked.issues[0]?.message}); using ${JSON.stringify(values[key])}`);
    }
  }
  return { values, problems };
}

// src/registry.ts
var RESULT_CHECKS = {
  "session.compact": (r) => Array.isArray(r.messages) || typeof r.skip === "string"
};
function isSettledShape(event, result) {
  if (result === null || typeof result !== "object") return false;
  const check = RESULT_CHECKS[event];
  return check ? check(result) : true;
}
var NEXT_TWICE = "next() called twice";
var NO_ERROR = /* @__PURE__ */ Symbol("no error");
var Registry = class {
  constructor(features) {
    this.features = features;
  }
  features;
  /** Skips per feature, for the status command. */
  skips = /* @__PURE__ */ new Map();
  /** Feature and event pairs whose last run was skipped: logged once until the feature succeeds again. */
  failing = /* @__PURE__ */ new Set();
  /** The events some active feature hooks: main.ts registers only these. */
  hooks(event) {
    return this.features.some((f) => f.hooks[event] !== void 0);
  }
  /**
   * The engine hook for `event`: each feature's hook in turn, each `next` running the features
   * beneath it and then the engine. `runs` says whether a feature takes part in this dispatch.
   */
  /** The chain of each event for one set of left-out features, built once and reused. */
  chains = /* @__PURE__ */ new Map();
  chainsLeavingOut;
  chainOf(event, leftOut) {
    if (leftOut !== this.chainsLeavingOut) {
      this.chains.clear();
      this.chainsLeavingOut = leftOut;
    }
    let chain = this.chains.get(event);
    if (!chain) {
      chain = this.features.filter((f) => f.hooks[event] !== void 0 && !leftOut?.has(f.name));
      this.chains.set(event, chain);
    }
    return chain;
  }
  /**
   * Runs `event` through each active feature's hook in turn, each `next` running the features
   * beneath it and then the engine. Features named in `leftOut` take no part.
   */
  dispatch(event, port, e, next, ctx, leftOut) {
    const chain = this.chainOf(event, leftOut);
    const step = (i, input) => {
      const feature = chain[i];
      if (feature === void 0) return next(input);
      const hook = feature.hooks[event];
      let beneath;
      let beneathError = NO_ERROR;
      const featureNext = ((rewritten) => {
        if (beneath !== void 0) return Promise.reject(new Error(NEXT_TWICE));
        beneath = step(i + 1, rewritten);
        beneath.catch((err) => beneathError = err);
        return beneath;
      });
      featureNext.signal = next.signal;
      featureNext.budget = next.budget;
      const skip = (why) => {
        this.noteSkip(feature.name, event, why, port);
        return beneath ?? step(i + 1, input);
      };
      let answer;
      try {
        answer = hook(port, input, featureNext, ctx);
      } catch (err) {
        return skip(describe(err));
      }
      return Promise.resolve(answer).then(
        (result) => {
          if (!isSettledShape(event, result)) return skip(result === void 0 ? "answered undefined" : `answered a wrong shape: ${preview(result)}`);
          if (this.failing.size) this.failing.delete(`${feature.name} ${event}`);
          return result;
        },
        // A failure that came up from beneath is not this feature's: it goes on up unchanged.
        (err) => err === beneathError ? Promise.reject(err) : skip(describe(err))
      );
    };
    return step(0, e);
  }
  noteSkip(feature, event, why, port) {
    this.skips.set(feature, (this.skips.get(feature) ?? 0) + 1);
    const key = `${feature} ${event}`;
    if (this.failing.has(key)) return;
    this.failing.add(key);
    port.log(`${feature}: ${event} hook skipped (${why})`);
  }
};
function describe(err) {
  return err instanceof Error ? `${err.name}: ${err.message}` : `threw ${preview(err)}`;
}
function preview(value) {
  const text = typeof value === "string" ? value : JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 79)}\u2026` : text;
}

// src/lib/runtime.ts
var COMMAND_DESCRIPTION = "What this package runs and why; its verbs.";
function createRuntime(features, template, raw) {
  const { values: options, problems } = parseOptions(allFields(template), raw);
  const isOn = (f) => f.name in raw && options[f.name] === true;
  const registry = new Registry(features.filter(isOn));
  const actingOn = registry.features.filter((f) => f.sessionActing).map((f) => f.name);
  let yields;
  let problemsLogged = false;
  const contextOf = (port) => ({ pkg: port.pkg, options });
  async function guarded(port, what, fallback, work) {
    try {
      return await work();
    } catch (err) {
      port.log(`keel: ${what} failed (${err instanceof Error ? err.message : String(err)})`);
      return fallback;
    }
  }
  let session;
  function sessionOf(port) {
    if (!session) {
      session = port.sessionId();
      session.catch(() => session = void 0);
    }
    return session;
  }
  async function yieldsOf(port) {
    if (yields) return yields;
    const found = /* @__PURE__ */ new Map();
    const above = ranksAbove(template.precedence, port.pkg);
    if (actingOn.length && above.length) {
      const claims = await guarded(port, "reading the other packages' claims", {}, async () => port.readClaims(await sessionOf(port), above));
      for (const feature of actingOn) {
        const owner = ownerOf(feature, template.precedence, port.pkg, claims);
        if (owner !== port.pkg) {
          found.set(feature, owner);
          port.log(`${feature}: yields to ${owner}, which runs it in this session`);
        }
      }
    }
    yields = found;
    return found;
  }
  async function startSession(port) {
    if (!problemsLogged) {
      problemsLogged = true;
      for (const problem of problems) port.log(`keel: ${problem}`);
    }
    yields = void 0;
    session = void 0;
    await Promise.all([
      actingOn.length && guarded(port, "publishing claims", void 0, async () => port.publishClaims(await sessionOf(port), actingOn)),
      guarded(port, "registering the package command", void 0, async () => {
        await port.registerCommand({ name: port.pkg, description: COMMAND_DESCRIPTION, argumentHint: usages().join(" | ") });
      })
    ]);
  }
  async function dispatch2(event, port, e, next) {
    const ctx = contextOf(port);
    if (event === "session.start") {
      const [, result] = await Promise.all([startSession(port), registry.dispatch(event, port, e, next, ctx)]);
      return result;
    }
    const yielded = yields ?? await yieldsOf(port);
    return registry.dispatch(event, port, e, next, ctx, yielded);
  }
  function usages() {
    const verbs = registry.features.flatMap((f) => Object.values(f.verbs ?? {}).map((v) => v.usage));
    return [STATUS_VERB, ...verbs];
  }
  async function statusText(port) {
    const ctx = contextOf(port);
    const yielded = await yieldsOf(port);
    const rows = [];
    for (const f of features) {
      const fieldKeys = Object.keys(template.features[f.name]?.userConfig ?? {});
      const lines = isOn(f) && f.status ? await guarded(port, `${f.name} status`, ["(status unavailable: see the debug log)"], async () => f.status(port, ctx)) : [];
      rows.push({
        ...activationOf(template, raw, ctx.pkg, f.name, isOn(f)),
        yieldsTo: yielded.get(f.name),
        options: Object.fromEntries(fieldKeys.filter((k) => k in raw).map((k) => [k, options[k]])),
        skips: registry.skips.get(f.name) ?? 0,
        lines
      });
    }
    return formatStatus(ctx.pkg, template.version, rows, problems);
  }
  async function command(port, e, next) {
    if (e.command !== port.pkg) return next(e);
    const ctx = contextOf(port);
    const { verb, rest } = parseCommandArgs(e.args);
    if (verb === STATUS_VERB) return { text: await statusText(port) };
    const owner = registry.features.find((f) => f.verbs?.[verb]);
    const handler = owner?.verbs?.[verb];
    if (!owner || !handler) return { text: unknownVerb(port.pkg, verb, usages()) };
    const text = await guarded(port, `/${port.pkg} ${verb}`, `/${port.pkg} ${verb} failed; the debug log says why.`, async () => handler.run(port, rest, ctx));
    return { text };
  }
  return {
    registry,
    hooks: (event) => event === "session.start" || registry.hooks(event),
    dispatch: dispatch2,
    command
  };
}

// src/main.ts
var runtime;
function dispatch(event, $, e, next) {
  return runtime.dispatch(event, portOf($), e, next);
}
function packageCommand($, e, next) {
  return runtime.command(portOf($), e, next);
}
export function register(on, options) {
  runtime = createRuntime(FEATURES, plugin_default, options);
  const rt = runtime;
  on("session.start", ($, e, next) => dispatch("session.start", $, e, next));
  on("command.run", { command: ["keel", "superheroes", "ws"] }, ($, e, next) => packageCommand($, e, next));
  if (rt.hooks("session.end")) on("session.end", ($, e, next) => dispatch("session.end", $, e, next));
  if (rt.hooks("session.compact")) on("session.compact", ($, e, next) => dispatch("session.compact", $, e, next));
  if (rt.hooks("session.measure")) on("session.measure", ($, e, next) => dispatch("session.measure", $, e, next));
  if (rt.hooks("turn.start")) on("turn.start", ($, e, next) => dispatch("turn.start", $, e, next));
  if (rt.hooks("turn.complete")) on("turn.complete", ($, e, next) => dispatch("turn.complete", $, e, next));
  if (rt.hooks("prompt.submit")) on("prompt.submit", ($, e, next) => dispatch("prompt.submit", $, e, next));
  if (rt.hooks("tool.call")) on("tool.call", ($, e, next) => dispatch("tool.call", $, e, next));
  if (rt.hooks("command.run")) on("command.run", ($, e, next) => dispatch("command.run", $, e, next));
  if (rt.hooks("ui.render")) on("ui.render", ($, e, next) => dispatch("ui.render", $, e, next));
}
