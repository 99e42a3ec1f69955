// Which model requests are routing's (§3.1, §4 rule 1): a request whose model is a configured alias
// goes to that alias's provider, and one naming an alias that cannot be routed now (the file went
// missing, broke, or its entry has errors) fails visibly, never reaching Claude. Every other model
// name is the engine's, untouched (rule 3): a gateway's own names stay native.
import { routeFor, type ConfigRead, type Route } from './config.ts'
import { aliasBroken, aliasNotConfigured } from './strings.ts'

export type RouteDecision =
  | { readonly kind: 'native' }
  | { readonly kind: 'route'; readonly route: Route }
  /** A name routing owns that cannot be routed now, with the visible reason. */
  | { readonly kind: 'fail'; readonly text: string }

export function createRouteTable(pkg: string, configPath: string) {
  let read: ConfigRead = { state: 'missing' }
  /**
   * Every alias a file loaded in this process named or configured: it stays routing's after an edit or
   * a deletion, so a stale name never reaches Claude. (A file's configured aliases are among those it
   * names; a read built by hand may not say so.)
   */
  const claimed = new Set<string>()

  return {
    load(next: ConfigRead): void {
      read = next
      if (next.state === 'loaded') for (const alias of [...next.claimed, ...Object.keys(next.config.models)]) claimed.add(alias)
    },
    get read(): ConfigRead {
      return read
    },
    decide(model: string | undefined): RouteDecision {
      // Every alias of the config is claimed (load), so a model nobody claimed is native.
      if (model === undefined || !claimed.has(model)) return { kind: 'native' }
      const route = read.state === 'loaded' && routeFor(read.config, model)
      if (route) return { kind: 'route', route }
      const named = read.state === 'loaded' && read.claimed.includes(model)
      return { kind: 'fail', text: named ? aliasBroken(pkg, model, configPath) : aliasNotConfigured(pkg, model, configPath) }
    },
    /** Whether a model name is routing's, routed or failing. */
    owns(model: string | undefined): boolean {
      return model !== undefined && claimed.has(model)
    },
    /** Whether a request body names one of routing's models anywhere: the cheap test before it is parsed. */
    mentionedIn(text: string): boolean {
      return [...claimed].some((name) => text.includes(`"${name}"`))
    },
    /** The aliases that route now. */
    aliases(): string[] {
      return read.state === 'loaded' ? Object.keys(read.config.models) : []
    },
  }
}

export type RouteTable = ReturnType<typeof createRouteTable>
