// The hooks module every keel package carries. One on() per event, each a literal event name and a
// function literal (the loader's rules), each dispatching into the runtime over the features this
// package runs. An event no active feature hooks is not registered, so it costs nothing.
import type { Args, Caught, Chunk, EngineInterface, EventResult, Next, On, PluginOptions, StreamNext } from 'claude-code'
import template from '../plugin.json'
import { bindFeatures } from './features/bind.ts'
import { FEATURES } from './features/index.ts'
import type { PromiseEvent, StreamEvent } from './registry.ts'
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

function dispatch<E extends PromiseEvent>(event: E, $: EngineInterface, e: Args<E>, next: Next<E>): Promise<EventResult<E>> {
  return bindLoad($).dispatch(event, e, next)
}

function stream<E extends StreamEvent>(event: E, $: EngineInterface, e: Args<E>, next: StreamNext<E>): AsyncGenerator<Chunk<E>, EventResult<E>> {
  return bindLoad($).stream(event, e, next)
}

function streamFailed<E extends StreamEvent>(event: E, $: EngineInterface, e: Args<E>, next: StreamNext<E> & Caught): AsyncGenerator<Chunk<E>, EventResult<E>> {
  return bindLoad($).streamFailed(event, e, next, String(next.error?.message ?? 'failed'))
}

function guardFailed<E extends PromiseEvent>(event: E, $: EngineInterface, e: Args<E>, next: Next<E> & Caught): Promise<EventResult<E>> {
  return bindLoad($).guardFailed(event, e, next, String(next.error?.message ?? 'failed'))
}

function packageCommand($: EngineInterface, e: Args<'command.run'>, next: Next<'command.run'>) {
  return bindLoad($).command(e, next)
}

export function register(on: On, options: PluginOptions): void {
  runtime = createRuntime(FEATURES, template as Template, options)
  const rt = runtime
  on('session.start', ($, e, next) => dispatch('session.start', $, e, next))
  // The package command: the matcher names every package of the bundle, the hook checks `$.plugin.name`.
  on('command.run', { command: ['keel', 'superheroes', 'ws', 'klyth'] }, ($, e, next) => packageCommand($, e, next))
  // The engine's commands a feature hears (`/model`, `/rename`): matched, so any other command costs no hop.
  if (rt.engineCommands.length) on('command.run', { command: ['model', 'rename'] }, ($, e, next) => dispatch('command.run', $, e, next))
  if (rt.hooks('session.end')) on('session.end', ($, e, next) => dispatch('session.end', $, e, next))
  if (rt.hooks('session.compact')) on('session.compact', ($, e, next) => dispatch('session.compact', $, e, next))
  if (rt.hooks('session.measure')) on('session.measure', ($, e, next) => dispatch('session.measure', $, e, next))
  // Every stored row passes session.append: matched, so only a peer's delivered row (the mailbox's live
  // mail, NOTES §2) makes the hop; and only a peer's delivery reaches session.receive.
  if (rt.hooks('session.append')) on('session.append', { door: ['prompt', 'delivery'], origin: { kind: 'peer' } }, ($, e, next) => dispatch('session.append', $, e, next))
  if (rt.hooks('session.receive')) on('session.receive', { origin: { kind: 'peer' } }, ($, e, next) => dispatch('session.receive', $, e, next))
  if (rt.hooks('session.send')) on('session.send', ($, e, next) => dispatch('session.send', $, e, next))
  if (rt.hooks('turn.start')) on('turn.start', ($, e, next) => dispatch('turn.start', $, e, next))
  // A failure of the whole hook at the engine (a chunk it refuses, the budget) would pass what is
  // beneath, native Claude: the `.catch` lets a feature that owns the step answer instead.
  if (rt.hooks('turn.step')) {
    on('turn.step', async function* ($, e, next) { return yield* stream('turn.step', $, e, next) })
      .catch(async function* ($, e, next) { return yield* streamFailed('turn.step', $, e, next) })
  }
  if (rt.hooks('turn.complete')) on('turn.complete', ($, e, next) => dispatch('turn.complete', $, e, next))
  // Where only plugins' own prompts are needed (reconnect's report), matched: the host tests the
  // matcher, so a person's prompt costs no hop (measured, test/bench/probe-submit.ts); routing hears every prompt.
  if (rt.hooks('prompt.submit')) {
    if (rt.pluginPromptsOnly) on('prompt.submit', { origin: { kind: 'plugin' } }, ($, e, next) => dispatch('prompt.submit', $, e, next))
    else on('prompt.submit', ($, e, next) => dispatch('prompt.submit', $, e, next))
  }
  if (rt.hooks('prompt.compose')) on('prompt.compose', ($, e, next) => dispatch('prompt.compose', $, e, next))
  if (rt.hooks('tool.call')) on('tool.call', ($, e, next) => dispatch('tool.call', $, e, next))
  // Tools of a server or a plugin only, by an object matcher the host tests (a RegExp is tested in
  // the worker, after the hop: measured, test/bench/FINDINGS.md): a built-in's description costs no hop.
  if (rt.hooks('tool.describe')) on('tool.describe', { provider: { tier: ['prepend', 'user', 'append'] } }, ($, e, next) => dispatch('tool.describe', $, e, next))
  if (rt.hooks('ui.render')) on('ui.render', ($, e, next) => dispatch('ui.render', $, e, next))
  // A guard: where keel's hook as a whole fails at the engine, a request a feature guards (an alias
  // model's) would go to the network; the `.catch` lets that feature refuse it instead.
  if (rt.hooks('http.fetch')) {
    on('http.fetch', ($, e, next) => dispatch('http.fetch', $, e, next))
      .catch(($, e, next) => guardFailed('http.fetch', $, e, next))
  }
  if (rt.hooks('agent.spawn')) on('agent.spawn', ($, e, next) => dispatch('agent.spawn', $, e, next))
}
