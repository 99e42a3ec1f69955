// Routing (klyth): a model request whose model is a configured alias is answered by that alias's
// provider, streamed, with the engine keeping its loop, tools, permissions and UI (routing.md §3).
// The route is the engine's own model name (§3.1): `/model <alias>`, `--model`, a settings default,
// subagents and forks all carry it, and every step and request is routed by `e.model` alone.
//
// Hooks: `turn.step` has the engine build its exact request and streams the provider's answer,
// failing closed (nothing beneath it answers an alias: a failure is the engine's own API error, or
// its own line where keel never saw the request); `http.fetch` runs a captured request's provider
// request and hands its answer to the step, answers token counts and the `/model` probe locally,
// translates every other alias request (compaction, side calls), and refuses on any failure;
// `command.run {model}` asks for approval before the switch and sets the window; `turn.complete` and
// `prompt.submit` tell native Claude which turns another model answered.
import type { Args, Chunk, EventResult, Next, StreamNext } from 'claude-code'
import type { Feature, FeatureContext } from '../../registry.ts'
import { configRootOf, keelHomeOf } from '../../lib/keel-home.ts'
import { hexOf } from '../../lib/hex.ts'
import { messageOf, toUndefined } from '../../lib/message.ts'
import { removeSafely, sweepTemps, writeSafely } from '../../lib/safe-write.ts'
import { collectAnswer, encodeAnthropicMessage, encodeAnthropicSse } from './anthropic.ts'
import { createCaptures } from './capture.ts'
import { readConfig, type Provider, type Route } from './config.ts'
import { REVIEW_PANE, SETUP_PANE, USAGE_PANE, CAPTURE_TIMEOUT_MS, CURL_ARGS, CURL_PATH, GATEWAY_FAILED, IDLE_TIMEOUT_MS, REPLAY_KEY_PREFIX, USAGE_DAYS, USAGE_DIR, USAGE_SESSIONS_KEPT } from './constants.ts'
import { parseCurlVersion, type BodyMode } from './curl.ts'
import { countTokensAnswer } from './estimate.ts'
import { exchangeFor } from './exchange.ts'
import { failureText } from './failure.ts'
import { createToolIds } from './ids.ts'
import { createKeys, type Keys } from './keys.ts'
import type { RoutingPort as Port } from './bind.ts'
import { redactorFor, secretsOf } from './redact.ts'
import { createRouteTable, type RouteTable } from './routes.ts'
import { createRelay, type StepRelay } from './relay.ts'
import { createReplays, type Replays } from './replay.ts'
import { agentCallOf, agentTool, markerNonce, routeMarker } from './agent.ts'
import { addRequest, parseSessionUsage, retained, sumAliases, totalOf, usageLines, type Counted, type SessionUsage } from './usage.ts'
import { CONTEXT_REPORTS, familyOf, PRESETS, reportedContext } from './dialect.ts'
import { mergeSetup, parseSetup, setupOf, type Refused, type SetupFields, type SetupLine } from './setup.ts'
import { linesTree, paneTree, SETUP_KINDS, type PaneElements } from './pane.ts'
import { createStep, type StepChunk, type StepResult } from './step.ts'
import { routingStatus, type CurlFacts } from './status.ts'
import {
  autoLine, CAPTURE_TIMED_OUT, CURL_MISSING, CURL_NOT_CURL, MANAGED_SETTINGS, fetchDenied, keyFailed, leaveNote, modelNotRoutable, modelSwitched,
  PANE_OPENED, PANE_TITLE, USAGE_OPENED, USAGE_TITLE, reloaded, ROUTE_USAGE, setupDone, setupRefused, setupSteps, smallServerWindow, spentText, usageReport, AGENT_BAD_INPUT, agentAnswered, agentEnded, agentNotRoutable, agentStarted, agentUnclaimed, routeUnknownVerb, SAVED_AS_DEFAULT, statusLine, stepFailed, trustAsk, TRUST_ALLOW, TRUST_ALREADY,
  TRUST_DENY, trustDeclined, trustGiven, trustNeeded, trustUnknown, trustWhich, untrusted, webSearchRefused,
} from './strings.ts'
import { providerFingerprint, trustKey } from './trust.ts'
import { sendRequest } from './transport.ts'
import { createAutoMode } from './auto.ts'
import { bodyText, isMessagesPath, isProbe, isStructured, pathOf, sourceOfKey, summaryOf } from './requests.ts'

/** The options of the routing feature (plugin.json, their one home). */
export const OPTIONS = { file: 'routingFile', curl: 'routingCurl', idleSeconds: 'routingIdleSeconds' } as const
const CONFIG_FILE = 'routing.json'
const MESSAGE_TYPE = 'text/event-stream'
const JSON_TYPE = 'application/json'

/** The answer the engine's own request for a routed step gets: a fake one, drained unread by the step. */
const CAPTURED_ANSWER = { text: '.', toolCalls: [], stopReason: 'end_turn' as const, usage: null }
/** A debug line for work nobody waits on, `<what>: <err>`: its `.catch`. */
const logged = (ctx: FeatureContext, what: string) => (err: unknown) => void ctx.log(`${what}: ${String(err)}`)
/** A local answer to an engine request: the least the engine takes (status, headers, text; NOTES §7). */
const local = (type: string, text: string, status = 200): EventResult<'http.fetch'> => ({ value: { status, ok: status >= 200 && status < 300, headers: { 'content-type': type }, text } })

type Curl = CurlFacts

/** What one routed request needs before it is sent: the route approved, its key, curl. */
type Ready = { readonly key: string | undefined; readonly curl: Extract<Curl, { argv: unknown }> } | { readonly text: string }

export function createRoutingFeature(): Feature<Port> {
  // Per registration: a reload reads the config afresh and forgets every key.
  let table: RouteTable | undefined
  let configPath = ''
  let curlPath: string = CURL_PATH
  let keys: Keys | undefined
  let curl: Promise<Curl> | undefined
  /** The last check that failed: status shows it until curl is checked again (the check itself is forgotten, so the next request asks again). */
  let curlFailed: Curl | undefined
  const captures = createCaptures()
  let replays!: Replays
  /** Approvals seen this load, by fingerprint: the store is read once per provider. */
  const approved = new Set<string>()
  let mintId: (() => string) | undefined
  const counts = { steps: 0, requests: 0, failures: 0 }
  let lastFailure: string | undefined
  /** Main turns answered by an alias since native Claude last answered: owed as a note when main goes native. */
  let routedRun: { readonly turns: number; readonly label: string; readonly model: string } | undefined
  let shownStatus: string | undefined
  let shownRoute: Route | undefined
  let bodies = 0
  /** keel's home's `usage/` folder (usage.ts), made at its first write inside the config root, and this session's ledger there, written one at a time. */
  let usageDir: string | undefined
  let configRoot = ''
  /** Managed settings on this machine: no routed step is made (MANAGED_SETTINGS). */
  let managed = false
  let ledger: { readonly session: string; readonly usage: SessionUsage } | undefined
  let writing: Promise<unknown> = Promise.resolve()
  /** The agent tool (agent.ts): its full name once registered, the aliases its spawns wait to be given, and the answers foreground calls wait for. */
  let agentToolName: string | undefined
  const spawning = new Map<string, string>()
  const delegated = new Map<string, (answer: string) => void>()
  const classifierOf = () => (table?.read.state === 'loaded' ? table.read.config.classifier : undefined)
  /** Auto mode's gap for routed calls (auto.ts). */
  const auto = createAutoMode(classifierOf)

  /** The setup pane's fields and what setup last said there, kept while the feature is loaded. */
  let pane: { fields: SetupFields; said: string } | undefined
  /** What each pane draws, by its id (ui.render draws the one its request names); the review's draws while one is up. */
  const drawings = new Map<string, (els: PaneElements) => unknown>([[REVIEW_PANE, auto.draw]])

  /** The route a model name takes now, if it is a routed alias. */
  const routeOf = (model: string | undefined) => {
    const decision = table?.decide(model)
    return decision?.kind === 'route' ? decision.route : undefined
  }
  const label = (model: string) => routeOf(model)?.label ?? model

  async function load(port: Port, ctx: FeatureContext): Promise<void> {
    curlPath = String(ctx.options[OPTIONS.curl] ?? '').trim() || CURL_PATH
    const given = String(ctx.options[OPTIONS.file] ?? '').trim()
    if (given) configPath = given
    else {
      const root = configRootOf(await port.homeFacts())
      const home = root === undefined ? undefined : keelHomeOf(root)
      configPath = home ? `${home}/${CONFIG_FILE}` : ''
      usageDir = home && `${home}/${USAGE_DIR}`
      configRoot = root ?? ''
    }
    table ??= createRouteTable(port.pkg, configPath || CONFIG_FILE)
    let text: string | undefined
    try {
      text = configPath ? await port.readText(configPath) : undefined
    } catch (err) {
      const error = messageOf(err)
      table.load({ state: 'unreadable', error })
      return ctx.log(`config ${configPath} unreadable: ${error}`)
    }
    const read = readConfig(text)
    table.load(read)
    if (read.state === 'unreadable') ctx.log(`config ${configPath}: ${read.error}`)
    if (read.state === 'loaded') for (const line of [...read.errors, ...read.warnings]) ctx.log(`config ${configPath}: ${line}`)
  }

  /** The session's ledger: its file, read once per session id (a resumed session counts on); a new session prunes the folder. */
  async function ledgerOf(port: Port, ctx: FeatureContext): Promise<SessionUsage> {
    const session = await ctx.facts.sessionId()
    if (ledger?.session !== session) {
      const file = usageDir && (await port.readText(`${usageDir}/${session}.json`).catch(toUndefined))
      ledger = { session, usage: parseSessionUsage(file) ?? { at: 0, transcript: await port.transcriptPath().catch(() => ''), aliases: {} } }
      if (!file) void usageViews(port, ctx).catch(logged(ctx, 'usage folder not read'))
    }
    return ledger.usage
  }

  /** One routed request, counted into its session's file; the status line shows what the session spent. */
  async function count(port: Port, ctx: FeatureContext, route: Route, counted: Counted | undefined): Promise<void> {
    const usage = await ledgerOf(port, ctx)
    usage.aliases[route.alias] = addRequest(usage.aliases[route.alias], counted, route.pricing)
    usage.at = await port.now()
    if (shownRoute) showStatus(port, shownRoute.alias)
    if (!usageDir) return
    const path = `${usageDir}/${ledger!.session}.json`
    writing = writing
      .then(() => writeSafely(port.files, { within: configRoot, path, text: JSON.stringify(usage) }))
      .then((written) => written.ok || ctx.log(`usage not saved: ${written.reason}`), logged(ctx, 'usage not saved'))
  }

  /** This session's totals and the last 30 days', by alias; the folder kept to the sessions whose transcript is there, the newest 200. */
  async function usageViews(port: Port, ctx: FeatureContext): Promise<string[]> {
    const mine = (await ledgerOf(port, ctx)).aliases
    const dir = usageDir
    const files = dir ? (await port.files.list(dir).catch(() => [])).filter((f) => f.name.endsWith('.json')) : []
    const sessions = await Promise.all(files.map(async (f) => {
      const usage = parseSessionUsage(await port.readText(`${dir}/${f.name}`).catch(toUndefined))
      return { name: f.name, usage, alive: !!usage && (await port.exists(usage.transcript).catch(() => false)) }
    }))
    const { kept, dropped } = retained(sessions, USAGE_SESSIONS_KEPT)
    for (const name of dropped) void removeSafely(port.files, dir!, `${dir}/${name}`).catch(toUndefined)
    const since = (await port.now()) - USAGE_DAYS * 86_400_000
    return usageReport(usageLines(mine), usageLines(sumAliases(kept.filter((s) => s.at >= since))))
  }

  /** A pane opened, drawn by `draw` from then on, and `opened` said; where no surface places it (headless, the SDK), the same in text, its `lines`. */
  async function showPane(port: Port, pane: { id: string; title: string }, draw: (els: PaneElements) => unknown, opened: string, lines: readonly string[]): Promise<string> {
    drawings.set(pane.id, draw)
    return (await port.openPane(pane).catch(() => false)) ? opened : lines.join('\n')
  }

  async function isApproved(port: Port, provider: Provider): Promise<boolean> {
    const fp = await providerFingerprint(provider)
    if (!approved.has(fp) && (await port.storeGet(trustKey(fp))) === true) approved.add(fp)
    return approved.has(fp)
  }

  async function approve(port: Port, provider: Provider): Promise<void> {
    const fp = await providerFingerprint(provider)
    await port.storeSet(trustKey(fp), true)
    approved.add(fp)
  }

  /** curl's path and version, asked once per load; a failure is asked again at the next request. */
  function curlOf(port: Port): Promise<Curl> {
    curl ??= (async (): Promise<Curl> => {
      const path = curlPath
      let out: Awaited<ReturnType<Port['run']>>
      try {
        out = await port.run([path, '--version'], 10_000)
      } catch {
        return { problem: CURL_MISSING(path) }
      }
      const version = parseCurlVersion(out.stdout)
      if (out.exitCode !== 0 || !version) return { problem: CURL_NOT_CURL(path) }
      return { argv: [path, ...CURL_ARGS], path, version: `${version.major}.${version.minor}.${version.patch}`, mode: version.json ? 'json' : 'file' }
    })()
    const pending = curl
    void pending.then((c) => {
      if ('problem' in c && curl === pending) {
        curl = undefined
        curlFailed = c
      }
    })
    return pending
  }

  /** The provider approved, then curl and the key (the key command runs only for an approved provider). */
  async function ready(port: Port, route: Route, model: string): Promise<Ready> {
    if (!(await isApproved(port, route.provider))) return { text: untrusted(port.pkg, route.provider.id, model) }
    const c = await curlOf(port)
    if ('problem' in c) return { text: stepFailed(port.pkg, route.label, c.problem) }
    const got = await keys!.keyFor(route.provider)
    if ('problem' in got) return { text: stepFailed(port.pkg, route.label, keyFailed(route.provider.id, got.problem)) }
    return { key: got.key, curl: c }
  }

  /** Sends one exchange: in file mode (curl before 7.82) the body goes through a file in the plugin data folder, blanked after. */
  async function* send(port: Port, ctx: FeatureContext, next: { readonly signal: AbortSignal; readonly budget: { readonly remainingMs: number } }, route: Route, ok: Extract<Ready, { curl: unknown }>, exchange: NonNullable<ReturnType<typeof exchangeFor>>) {
    const idleSeconds = Number(ctx.options[OPTIONS.idleSeconds])
    const idleMs = Number.isFinite(idleSeconds) && idleSeconds > 0 ? idleSeconds * 1000 : IDLE_TIMEOUT_MS
    let mode: BodyMode = { kind: 'json' }
    let bodyFile: { within: string; path: string } | undefined
    if (ok.curl.mode === 'file') {
      const within = await port.pluginDataDir()
      // A crashed exchange's temporary file (a whole request body) goes before the next is written.
      await sweepTemps(port.files, within, within, port.now)
      bodyFile = { within, path: `${within}/routing-request-${++bodies}.json` }
      const written = await writeSafely(port.files, { within, path: bodyFile.path, text: exchange.request.body })
      if (!written.ok) throw new Error(written.reason)
      mode = { kind: 'file', path: bodyFile.path }
    }
    try {
      // The transport's edges: the hook's own signal and budget.
      const edges = { spawn: port.spawn, sleep: (ms: number) => port.sleep(ms, next.signal), every: port.every, now: port.now, remainingMs: () => next.budget.remainingMs, aborted: () => next.signal.aborted }
      return yield* sendRequest(edges, exchange.request, { curl: ok.curl.argv, bodyMode: mode, idleMs, makeDecoder: exchange.makeDecoder })
    } finally {
      if (bodyFile) await removeSafely(port.files, bodyFile.within, bodyFile.path).catch(logged(ctx, 'request file not removed'))
    }
  }

  /**
   * A request naming one of routing's models, its text and summary; what the guard refuses when it
   * fails. The cheap test first: a native request names no alias anywhere in its body.
   */
  function routedRequest(e: Args<'http.fetch'>) {
    const text = bodyText(e.init?.body)
    const summary = text !== undefined && table?.mentionedIn(text) && summaryOf(text)
    return summary && table!.owns(summary.model) && { text: text!, summary }
  }

  function noteFailure(text: string): void {
    counts.failures++
    lastFailure = text
  }

  /** An engine request refused with routing's line: the engine shows it as its own API error. */
  function refuse(text: string): EventResult<'http.fetch'> {
    noteFailure(text)
    return { deny: text }
  }

  /** A step that fails before any output: its line (`why` the alias failed), and a stop, so the turn ends visibly (§4). */
  async function* failStep(e: Args<'turn.step'>, pkg: string, why: string): AsyncGenerator<Chunk<'turn.step'>, EventResult<'turn.step'>> {
    const text = stepFailed(pkg, label(e.model), why)
    noteFailure(text)
    const end = createStep({ pkg: '', label: '', alias: e.model, mintId: () => '' }).fail(text)
    yield* end.chunks
    return { turnId: e.turnId, index: e.index, ...end.result }
  }

  function showStatus(port: Port, model: string | undefined): void {
    shownRoute = routeOf(model)
    const spent = spentText(totalOf(ledger?.usage.aliases ?? {}))
    const text = shownRoute && statusLine(port.pkg, shownRoute.label, shownRoute.provider.id, spent)
    if (text === shownStatus) return
    shownStatus = text
    port.status(text)
  }

  async function setWindow(port: Port, ctx: FeatureContext, route: Route): Promise<void> {
    try {
      await port.setUnknownModelWindow(route.context)
    } catch (err) {
      ctx.log(`window not set to ${route.context}: ${messageOf(err)}`)
    }
  }

  /**
   * The routed step (§3.2, NOTES §11.1): `next` makes the engine send its exact request, which the
   * http.fetch hook below captures and answers with the provider's: the answer's chunks come through
   * the relay as they arrive, and the engine's request is answered once the provider's has ended.
   * Answered whole, the engine's response is drained unread (nothing of it is recorded: NOTES §7);
   * failed, it is the engine's own API error, passed on as the engine would show and report it.
   * While the engine's request is held, a read of it is pending: the step's waits cost no budget.
   */
  async function* step(port: Port, e: Args<'turn.step'>, next: StreamNext<'turn.step'>, ctx: FeatureContext): AsyncGenerator<Chunk<'turn.step'>, EventResult<'turn.step'> | void> {
    if (e.agentId === undefined) showStatus(port, e.model)
    if (!table?.owns(e.model)) return yield* next(e)
    // Nothing is asked of the engine where its request would pass keel by (NOTES §13.3).
    if (managed) return yield* failStep(e, port.pkg, MANAGED_SETTINGS)
    const relay: StepRelay = createRelay()
    const wait = captures.expect(e.model, e.agentId, relay)
    const stopTimer = port.after(CAPTURE_TIMEOUT_MS, () => wait.cancel(new Error(CAPTURE_TIMED_OUT)))
    const beneath = next(e)
    const answered = beneath.next()
    try {
      // A request answered before keel saw it (another plugin's hook, a Bedrock setup) is no capture.
      await Promise.race([wait.captured, answered.then(() => Promise.reject(new Error(CAPTURE_TIMED_OUT)))])
    } catch (err) {
      wait.cancel(err as Error)
      void beneath.return(undefined as never).catch(toUndefined)
      return yield* failStep(e, port.pkg, messageOf(err))
    } finally {
      stopTimer()
    }
    let got = await relay.next()
    for (; !got.done; got = await relay.next()) {
      if (got.value.kind === 'tool') auto.routed(got.value.id)
      yield got.value
    }
    const result = got.value
    let r = await answered
    for (; !r.done; r = await beneath.next()) if (!result) yield r.value
    return result ? { turnId: e.turnId, index: e.index, ...result } : r.value
  }

  /**
   * Every engine model request naming an alias (§3.2): never sent to Anthropic. The capture a step
   * waits for, a token count and the `/model` probe are answered here without the network; any other
   * (the summarizer, a plugin's `$.model.complete`, the title) is translated and answered whole.
   */
  async function fetch(port: Port, e: Args<'http.fetch'>, next: Next<'http.fetch'>, ctx: FeatureContext): Promise<EventResult<'http.fetch'>> {
    if (next.origin?.plugin !== 'engine' || !table) return next(e)
    const path = pathOf(e.url)
    const routed = isMessagesPath(path) && routedRequest(e)
    if (!routed) return next(e)
    const { text, summary } = routed
    const decision = table.decide(summary.model)
    if (decision.kind === 'native') return next(e)
    // Sent on, the search would come back as the model's own words under "Web search results" (NOTES §13.2).
    if (summary.webSearch && decision.kind === 'route') return { deny: webSearchRefused(port.pkg, decision.route.label) }
    const headers = (e.init?.headers ?? {}) as Record<string, string>
    const counting = path.endsWith('/count_tokens')
    // A routed step's own request (a loop's, streamed): its answer goes to the step as it comes.
    const relay = counting || isProbe(summary) || isStructured(summary) ? undefined : captures.take(summary.model, headers)
    let result: StepResult | undefined
    try {
      if (decision.kind === 'fail') return refuse(decision.text)
      if (counting) return local(JSON_TYPE, countTokensAnswer(text))
      const meta = { id: `msg_keel_${port.pkg}`, model: summary.model }
      if (isProbe(summary)) return local(JSON_TYPE, encodeAnthropicMessage(CAPTURED_ANSWER, meta))
      const { route } = decision
      const ok = await ready(port, route, summary.model)
      if ('text' in ok) return refuse(ok.text)
      mintId ??= createToolIds(port.randomBytes)
      // What the route's earlier steps send back goes only to the provider and model that made them.
      const session = await ctx.facts.sessionId()
      const origin = `${route.provider.id} ${route.model}`
      const exchange = exchangeFor({ pkg: port.pkg, route, url: e.url, headers, body: text, key: ok.key, mintId, replay: await replays.lookup(session, origin) })
      if (!exchange) return { deny: fetchDenied(port.pkg) }
      counts[relay ? 'steps' : 'requests']++
      const chunks: StepChunk[] = []
      const gen = send(port, ctx, next, route, ok, exchange)
      let answered = false
      let r = await gen.next()
      for (; !r.done; r = await gen.next(), answered = true) (relay ?? chunks).push(r.value)
      const out = r.value
      // Counted from the provider's own usage; a request that failed once its answer had begun cost
      // something nobody reported: a gap (one that failed before any answer cost nothing).
      if (out.end || answered) void count(port, ctx, route, out.end?.counted).catch(logged(ctx, 'usage not counted'))
      if (out.failure) {
        const line = failureText(port.pkg, route, out.failure, redactorFor([...secretsOf(route.provider, ok.key), ...keys!.held()]))
        noteFailure(line)
        // A local error status: the engine shows its message, reports the turn failed, and does not
        // retry (measured, NOTES §7 and §11.1); the provider's own status where it sent one.
        return local(JSON_TYPE, JSON.stringify({ type: 'error', error: { type: 'api_error', message: line } }), out.failure.kind === 'status' ? out.failure.status : GATEWAY_FAILED)
      }
      result = out.end.result
      const kept = out.end.kept
      if (kept) void replays.keep(session, kept.ids, { origin, ...kept }).catch(logged(ctx, `what ${route.label} sends back was not stored`))
      const whole = relay ? CAPTURED_ANSWER : collectAnswer(chunks)
      return exchange.engineStreams ? local(MESSAGE_TYPE, encodeAnthropicSse(whole, meta)) : local(JSON_TYPE, encodeAnthropicMessage(whole, meta))
    } finally {
      relay?.end(result)
    }
  }

  /**
   * `/model <alias>` (§3.5, NOTES §2): approval is asked before the switch (the probe request comes
   * only inside `next`), and the window is set before it too, so the engine's "assumes 1m tokens"
   * notice is never printed. The output names who answers now (headless; the terminal UI draws the
   * engine's own text, so it gets a toast).
   */
  async function model(port: Port, e: Args<'command.run'>, next: Next<'command.run'>, ctx: FeatureContext): Promise<EventResult<'command.run'>> {
    if (e.command !== 'model' || !table) return next(e)
    const name = e.args.trim()
    const decision = table.decide(name)
    if (decision.kind === 'native') {
      const result = await next(e)
      showStatus(port, await port.mainModel().catch(toUndefined))
      return result
    }
    if (decision.kind === 'fail') return { text: modelNotRoutable(name, decision.text.replace(`${port.pkg}: `, '')) }
    const { route } = decision
    if (!(await isApproved(port, route.provider))) {
      let choice: string | undefined
      try {
        choice = await port.ask(trustAsk(route.label, route.provider.baseUrl), [TRUST_ALLOW, TRUST_DENY])
      } catch {
        return { text: trustNeeded(port.pkg, route.provider.id, route.label, route.provider.baseUrl) }
      }
      if (choice !== TRUST_ALLOW) return { text: trustDeclined(route.provider.id) }
      await approve(port, route.provider)
    }
    await setWindow(port, ctx, route)
    const result = await next(e)
    showStatus(port, name)
    const said = modelSwitched(route.label, route.model, port.pkg, route.context) + (await localWindow(port, ctx, route))
    if (typeof result?.text === 'string') return { ...result, text: said }
    port.toast(`${said}; ${SAVED_AS_DEFAULT}`)
    return result
  }

  /** A local server whose loaded context is below the alias's `context` is named at the switch: the engine would compact too late. */
  async function localWindow(port: Port, ctx: FeatureContext, route: Route): Promise<string> {
    const family = familyOf(route.provider) ?? ''
    const report = CONTEXT_REPORTS[family]
    if (!report) return ''
    try {
      const reported = reportedContext(family, await port.fetchText(new URL(route.provider.baseUrl).origin + report[0]), route.model)
      return reported !== undefined && reported < route.context ? `; ${smallServerWindow(route.alias, route.context, family, reported)}` : ''
    } catch (err) {
      ctx.log(`${family} did not say ${route.model}'s context: ${messageOf(err)}`)
      return ''
    }
  }

  /** A call of the agent tool: the alias checked and approved, then a marked spawn; in the foreground, its answer. */
  async function delegate(port: Port, e: Args<'tool.call'>, next: Next<'tool.call'>, ctx: FeatureContext): Promise<EventResult<'tool.call'>> {
    if (e.tool !== agentToolName || !table) return next(e)
    const call = agentCallOf(e)
    if (!call) return { deny: agentNotRoutable(port.pkg, String((e as Record<string, unknown>).model), AGENT_BAD_INPUT) }
    const decision = table.decide(call.model)
    if (decision.kind !== 'route') return { deny: agentNotRoutable(port.pkg, call.model, decision.kind === 'fail' ? decision.text : AGENT_BAD_INPUT) }
    const { route } = decision
    if (!(await isApproved(port, route.provider))) return { deny: untrusted(port.pkg, route.provider.id, route.alias) }
    const nonce = hexOf(port.randomBytes(8))
    spawning.set(nonce, route.alias)
    const spawned = await port.spawnAgent({ prompt: routeMarker(port.pkg, nonce) + call.prompt, description: call.description })
    if ('deny' in spawned) return { deny: spawned.deny }
    ctx.log(`${route.label} took a task as agent ${spawned.agentId}`)
    if (call.background) {
      // Its answer goes to main as a prompt of its own, once main is idle (the engine sends none for a plugin's spawn).
      delegated.set(spawned.agentId, (answer) => void port.submit(agentAnswered(route.label, call.description, answer)).catch(logged(ctx, `the answer of ${spawned.agentId} was not delivered`)))
      return { result: agentStarted(route.label, spawned.agentId) }
    }
    const answer = await new Promise<string>((resolve) => {
      delegated.set(spawned.agentId, resolve)
      next.signal.addEventListener('abort', () => resolve(''))
    })
    return { result: answer }
  }

  /** routing's own marked spawn: the mark off, the alias the child's model; a mark with no route waiting is refused. */
  function claimSpawn(port: Port, e: Args<'agent.spawn'>, next: Next<'agent.spawn'>): Promise<EventResult<'agent.spawn'>> | EventResult<'agent.spawn'> {
    const nonce = markerNonce(port.pkg, e.prompt)
    if (nonce === undefined) return next(e)
    const alias = spawning.get(nonce)
    spawning.delete(nonce)
    if (!alias || !routeOf(alias)) return { deny: agentUnclaimed(port.pkg) }
    return next({ ...e, prompt: e.prompt.slice(routeMarker(port.pkg, nonce).length), model: alias })
  }

  async function routeVerb(port: Port, args: string, ctx: FeatureContext): Promise<string> {
    const [verb = 'status', id] = args.trim().split(/\s+/).filter(Boolean)
    if (verb === 'status') return (await statusLines(port)).join('\n')
    if (verb === 'usage') {
      // In the terminal UI a pane of the same lines; headless and in the SDK, the text.
      const lines = await usageViews(port, ctx)
      return showPane(port, { id: USAGE_PANE, title: USAGE_TITLE }, (els) => linesTree(els, lines), USAGE_OPENED, lines)
    }
    if (verb === 'reload') return reloaded(await reload(port, ctx))
    if (verb === 'setup') {
      const line = args.trim().slice(verb.length)
      if (line.trim()) return setup(port, parseSetup(line), ctx)
      // In the terminal UI the pane; headless and in the SDK (no surface places it), the steps as text.
      // The form: a pick or a keystroke keeps its field; Set up runs the same setup as the line and shows its answer.
      const form = (pane ??= { fields: { kind: SETUP_KINDS[0]!, alias: '', key: '' }, said: '' })
      const submit = () => void setup(port, setupOf(form.fields), ctx).then((said) => ((form.said = said), port.redraw()), logged(ctx, 'setup failed'))
      const draw = (els: PaneElements) => paneTree(els, form.fields, form.said, port.redraw, submit)
      return showPane(port, { id: SETUP_PANE, title: PANE_TITLE }, draw, PANE_OPENED, setupSteps(port.pkg, PRESETS))
    }
    if (verb === 'trust') {
      const read = table?.read
      const providers = read?.state === 'loaded' ? read.config.providers : {}
      const ids = Object.keys(providers)
      if (!id) return trustWhich(ids)
      const provider = providers[id]
      if (!provider) return trustUnknown(id, ids)
      if (await isApproved(port, provider)) return `${id}: ${TRUST_ALREADY}`
      await approve(port, provider)
      return trustGiven(id, provider.baseUrl, sourceOfKey(provider.auth))
    }
    return routeUnknownVerb(verb)
  }

  /** The config read afresh, every key, curl check and approval forgotten; its summary line. */
  async function reload(port: Port, ctx: FeatureContext): Promise<string> {
    keys?.forget()
    curl = undefined
    curlFailed = undefined
    approved.clear()
    auto.reset()
    await load(port, ctx)
    return (await statusLines(port))[0] ?? ''
  }

  /** A setup, the line's or the pane's: its entries added to routing.json (the safe writer, only over the text they were merged into), then routing reloaded. */
  async function setup(port: Port, parsed: SetupLine | Refused, ctx: FeatureContext): Promise<string> {
    const before = await port.readText(configPath)
    const merged = 'problems' in parsed ? parsed : mergeSetup(before, parsed)
    if ('problems' in merged) return setupRefused(port.pkg, merged.problems)
    const written = await writeSafely(port.files, { within: configRoot || configPath.slice(0, configPath.lastIndexOf('/')), path: configPath, text: merged.text, expected: before ?? null })
    if (!written.ok) return setupRefused(port.pkg, [written.reason])
    const { alias, providerId, keyStep } = parsed as SetupLine
    return setupDone(port.pkg, alias, providerId, configPath, await reload(port, ctx), keyStep)
  }

  async function statusLines(port: Port): Promise<string[]> {
    const read = table?.read ?? { state: 'missing' as const }
    const providers = read.state === 'loaded' ? Object.values(read.config.providers) : []
    const approvals = Object.fromEntries(await Promise.all(providers.map(async (p) => [p.id, await isApproved(port, p).catch(() => false)])))
    const main = await port.mainModel().catch(toUndefined)
    return routingStatus({
      configPath: configPath || CONFIG_FILE,
      read,
      approvals,
      keyState: (p: Provider) => keys?.stateOf(p) ?? 'not read yet',
      main: main === undefined ? undefined : { model: main, routedTo: routeOf(main)?.label },
      counts,
      auto: autoLine(classifierOf(), auto.counts),
      lastFailure,
      curl: curl ? await curl : curlFailed,
      curlPath,
    })
  }

  return {
    name: 'routing',
    // Answers model requests: two packages routing one session would send each request twice.
    sessionActing: true,
    commands: ['model'],
    draws: ['Pane'],
    hooks: {
      'session.start': async (port, e, next, ctx) => {
        replays ??= createReplays({ load: (session) => port.storeGet(REPLAY_KEY_PREFIX + session), save: (session, entries) => port.storeSet(REPLAY_KEY_PREFIX + session, entries) })
        keys ??= createKeys({ run: port.run, read: (path) => port.readText(path).then((t) => t ?? Promise.reject(new Error('no such file'))), now: port.now })
        auto.reset()
        await load(port, ctx)
        // A session that starts on an alias (`--model`, a settings default, a resume): the window first.
        if (table!.aliases().length) {
          // curl's version is asked off the start's path, before the first routed step needs it (asked
          // inside that step, it cost the first token 150–160 ms: test/bench/FINDINGS.md).
          port.after(0, () => void curlOf(port))
          managed = await port.managed().catch(() => false)
          agentToolName = await port.registerTool(agentTool(port.pkg, table!.aliases().map((a) => routeOf(a)!))).catch(logged(ctx, 'the agent tool was not registered'))
          const main = await port.mainModel().catch(toUndefined)
          const route = routeOf(main)
          if (route) await setWindow(port, ctx, route)
          showStatus(port, main)
        }
        return next(e)
      },
      'turn.step': {
        run: step,
        onFailure: {
          // A routed step never falls back to what is beneath (§4 rule 2): its failure is its answer.
          answer: (failure, e, ctx) => failStep(e, ctx.pkg, failure.message),
          owns: (e) => table?.owns(e.model) ?? false,
        },
      },
      // A failure refuses only a request naming one of routing's models: any other fails open (§4 rule 3).
      'http.fetch': { run: fetch, onFailure: { deny: (e, ctx) => (routedRequest(e) ? fetchDenied(ctx.pkg) : undefined) } },
      'command.run': model,
      // The agent tool (agent.ts): a failure refuses the call rather than leave a spawn half made.
      'tool.call': { run: delegate, onFailure: { deny: (e, ctx) => (e.tool === agentToolName ? agentUnclaimed(ctx.pkg) : undefined) } },
      // routing's own spawn, marked: its alias set as the child's model, or refused, never left to Claude.
      'agent.spawn': { run: claimSpawn, onFailure: { deny: (e, ctx) => (markerNonce(ctx.pkg, e.prompt) !== undefined ? agentUnclaimed(ctx.pkg) : undefined) } },
      // Auto mode (auto.ts): the check beneath tells a plain ask from a rule's, a hook's or a ceiling's; the judge may pass it once.
      'tool.check': async (_port, e, next) => {
        const r = await next(e)
        auto.checked(e, r)
        return r
      },
      'tool.judge': async (port, e, next, ctx) => auto.judge(port, e, await next(e), ctx, next),
      // A pane routing opened (setup's form, usage's lines, the review while one is up): drawn by its own drawing.
      'ui.render': (port, e, next) => {
        const draw = e.component === 'Pane' && drawings.get(e.requestId)
        return ((draw && draw(port.elements(e) as PaneElements)) || next(e)) as Awaited<ReturnType<typeof next>>
      },
      // The ledger's last write lands before the session ends: a print-mode run ends right after its turn.
      'session.end': async (_port, e, next) => {
        await writing
        return next(e)
      },
      'turn.complete': (_port, e, next) => {
        // A delegated task's answer goes back as its tool call's result.
        if (e.agentId !== undefined) {
          delegated.get(e.agentId)?.(e.reason === 'answer' ? e.answer : agentEnded(label(e.usage?.model ?? ''), e.reason, e.answer))
          delegated.delete(e.agentId)
        } else {
          const route = routeOf(e.usage?.model)
          if (route) routedRun = { turns: (routedRun?.turns ?? 0) + 1, label: route.label, model: route.model }
        }
        return next(e)
      },
      // Native Claude is told once which turns another model answered (klyth F7).
      'prompt.submit': async (port, e, next) => {
        // The person's own prompts are what auto mode's classifier reads beside the action.
        if (e.origin?.kind !== 'plugin' && !e.isMeta && !e.command) auto.prompt(e.text)
        if (!routedRun) return next(e)
        const main = await port.mainModel()
        if (table?.owns(main)) return next(e)
        const run = routedRun
        routedRun = undefined
        return next({ ...e, context: [...(e.context ?? []), leaveNote(run.turns, run.label, run.model, port.pkg)] })
      },
    },
    verbs: { route: { usage: ROUTE_USAGE, run: routeVerb } },
    status: (port) => statusLines(port),
  }
}
