// The types of nodes.mjs, for the type-checked tests that import it.
export type NodeCounts = { total: number; byFile: Record<string, number>; byGroup: Record<string, number> }
export const NODE_LIMIT: number
export const NODE_BUDGET: number
export function groupOf(file: string): string
export function nodeCounts(code: string): NodeCounts
export function bundleNodeCounts(): NodeCounts
export const DOLLAR_FILES: RegExp[]
export type DollarFunction = { name: string; file: string; nodes: number }
export function dollarFunctions(code: string): DollarFunction[]
export function bundleDollarFunctions(): DollarFunction[]
