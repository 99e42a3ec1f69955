// The hooks module every keel package carries. One on() per event, each a literal event name and a
// function literal (the loader's rules), each dispatching into the registry over the features this
// package runs. An event no active feature hooks is not registered, so it costs nothing.
import type { Args, EngineInterface, EventResult, Next, On, PluginOptions } from 'claude-code'
import template from '../plugin.json'
import { FEATURES } from './features/index.ts'
import type { Template } from './lib/activation.ts'
import { portOf, type Port } from './lib/port.ts'
import { createRuntime, type Runtime } from './lib/runtime.ts'
import type { HookedEvent } from './registry.ts'

let runtime: Runtime
/** Built at the first dispatch of this load: `$` is the same object at every invocation. */
let port: Port | undefined

/** The port the features get: `$`'s edges, with a compaction a feature asks for run through the chain. */
function featurePort($: EngineInterface): Port {
  const edges = portOf($)
  const ported: Port = { ...edges, compactSession: (instructions) => runtime.compact(ported, instructions, edges.compactSession) }
  return ported
}

/** Every hook's body: `$` becomes the port here, the one place the loader lets it be handed on. */
function dispatch<E extends HookedEvent>(event: E, $: EngineInterface, e: Args<E>, next: Next<E>): Promise<EventResult<E>> {
  return runtime.dispatch(event, (port ??= featurePort($)), e, next)
}

function packageCommand($: EngineInterface, e: Args<'command.run'>, next: Next<'command.run'>) {
  return runtime.command((port ??= featurePort($)), e, next)
}

export function register(on: On, options: PluginOptions): void {
  runtime = createRuntime(FEATURES, template as Template, options)
  port = undefined
  const rt = runtime
  on('session.start', ($, e, next) => dispatch('session.start', $, e, next))
  // The package command: the matcher names every package of the bundle, the hook checks `$.plugin.name`.
  on('command.run', { command: ['keel', 'superheroes', 'ws'] }, ($, e, next) => packageCommand($, e, next))
  if (rt.hooks('session.end')) on('session.end', ($, e, next) => dispatch('session.end', $, e, next))
  if (rt.hooks('session.compact')) on('session.compact', ($, e, next) => dispatch('session.compact', $, e, next))
  if (rt.hooks('session.measure')) on('session.measure', ($, e, next) => dispatch('session.measure', $, e, next))
  if (rt.hooks('turn.start')) on('turn.start', ($, e, next) => dispatch('turn.start', $, e, next))
  if (rt.hooks('turn.complete')) on('turn.complete', ($, e, next) => dispatch('turn.complete', $, e, next))
  if (rt.hooks('prompt.submit')) on('prompt.submit', ($, e, next) => dispatch('prompt.submit', $, e, next))
  if (rt.hooks('tool.call')) on('tool.call', ($, e, next) => dispatch('tool.call', $, e, next))
  if (rt.hooks('command.run')) on('command.run', ($, e, next) => dispatch('command.run', $, e, next))
  if (rt.hooks('ui.render')) on('ui.render', ($, e, next) => dispatch('ui.render', $, e, next))
  // MCP tools only: a built-in's description costs no hop into the worker.
  if (rt.hooks('tool.describe')) on('tool.describe', { tool: /^mcp__/ }, ($, e, next) => dispatch('tool.describe', $, e, next))
}
