// The hooks module every keel package carries. One on() per event, each a literal event name (the
// loader's rule) and one of the top-level hooks below, each dispatching into the runtime over the
// features this package runs. An event no active feature hooks is not registered, so it costs nothing.
import type { Args, Caught, EngineInterface, Next, On, PluginOptions, StreamNext } from 'claude-code'
import template from '../plugin.json'
import { bindFeatures } from './features/bind.ts'
import { FEATURES } from './features/index.ts'
import type { PromiseEvent } from './registry.ts'
import type { Template } from './runtime/activation.ts'
import { bindRuntime } from './runtime/bind.ts'
import { createRuntime, type Runtime } from './runtime/runtime.ts'

let runtime: Runtime

/**
 * `$` becomes ports here, once per load (`$` is one object per load): the loader lets it be handed
 * only to functions declared at a module's top, so nothing that dispatches dynamically holds it.
 */
function bindLoad($: EngineInterface): Runtime {
  if (!runtime.isBound) runtime.bind(bindRuntime($), bindFeatures($))
  return runtime
}

/** The hook of every promise event: the engine names the event it runs in `next.event`. */
function dispatch<E extends PromiseEvent>($: EngineInterface, e: Args<E>, next: Next<E>) {
  return bindLoad($).dispatch(next.event, e, next)
}

/** turn.step's hook, and its `.catch` handler: the engine's next carries `error` only in the handler. */
async function* stream($: EngineInterface, e: Args<'turn.step'>, next: StreamNext<'turn.step'> & Partial<Caught>) {
  return yield* bindLoad($).stream('turn.step', e, next)
}

function guardFailed($: EngineInterface, e: Args<'http.fetch'>, next: Next<'http.fetch'> & Caught) {
  return bindLoad($).guardFailed('http.fetch', e, next)
}

function packageCommand($: EngineInterface, e: Args<'command.run'>, next: Next<'command.run'>) {
  return bindLoad($).command(e, next)
}

export function register(on: On, options: PluginOptions): void {
  runtime = createRuntime(FEATURES, template as Template, options)
  const hooks = runtime.hooks
  on('session.start', dispatch)
  // The package command: the matcher names every package of the bundle, the hook checks `$.plugin.name`.
  on('command.run', { command: ['keel', 'superheroes', 'ws', 'klyth'] }, packageCommand)
  // The engine's commands a feature hears (`/model`, `/rename`): matched, so any other command costs no hop.
  if (runtime.engineCommands.length) on('command.run', { command: ['model', 'rename'] }, dispatch)
  if (hooks('session.end')) on('session.end', dispatch)
  if (hooks('session.compact')) on('session.compact', dispatch)
  if (hooks('session.measure')) on('session.measure', dispatch)
  // Every stored row passes session.append: matched, so only a peer's delivered row (the mailbox's live
  // mail, NOTES §2) makes the hop; and only a peer's delivery reaches session.receive.
  if (hooks('session.append')) on('session.append', { door: ['prompt', 'delivery'], origin: { kind: 'peer' } }, dispatch)
  if (hooks('session.receive')) on('session.receive', { origin: { kind: 'peer' } }, dispatch)
  if (hooks('session.send')) on('session.send', dispatch)
  if (hooks('turn.start')) on('turn.start', dispatch)
  // A failure of the whole hook at the engine (a chunk it refuses, the budget) would pass what is
  // beneath, native Claude: the `.catch` lets a feature that owns the step answer instead.
  if (hooks('turn.step')) on('turn.step', stream).catch(stream)
  if (hooks('turn.complete')) on('turn.complete', dispatch)
  // Where only plugins' own prompts are needed (reconnect's report), matched: the host tests the
  // matcher, so a person's prompt costs no hop (measured, test/bench/probe-submit.ts); routing hears every prompt.
  if (hooks('prompt.submit')) {
    if (runtime.pluginPromptsOnly) on('prompt.submit', { origin: { kind: 'plugin' } }, dispatch)
    else on('prompt.submit', dispatch)
  }
  if (hooks('prompt.compose')) on('prompt.compose', dispatch)
  if (hooks('tool.call')) on('tool.call', dispatch)
  if (hooks('tool.check')) on('tool.check', dispatch)
  if (hooks('tool.judge')) on('tool.judge', dispatch)
  // Tools of a server or a plugin only, by an object matcher the host tests (a RegExp is tested in
  // the worker, after the hop: measured, test/bench/FINDINGS.md): a built-in's description costs no hop.
  if (hooks('tool.describe')) on('tool.describe', { provider: { tier: ['prepend', 'user', 'append'] } }, dispatch)
  // Only the components the active features draw (captions' tool rows, checkpoint's band, routing's setup
  // pane): matched on the host, so every other drawing makes no hop (measured: 22 hops in one TUI turn of
  // klyth unmatched, none matched). The matcher narrows the event's type, which the one dispatch does not follow.
  if (hooks('ui.render')) on('ui.render', { component: runtime.drawn }, dispatch as never)
  // A guard: where keel's hook as a whole fails at the engine, a request a feature guards (an alias
  // model's) would go to the network; the `.catch` lets that feature refuse it instead.
  if (hooks('http.fetch')) on('http.fetch', dispatch).catch(guardFailed)
  if (hooks('agent.spawn')) on('agent.spawn', dispatch)
}
