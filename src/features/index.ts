// Every feature of the bundle, outermost first: the order their hooks nest in one dispatch.
import type { Feature } from '../registry.ts'

export const FEATURES: readonly Feature[] = []
