// Each option field's declared default, as the runtime hands it to a feature (`ctx.defaults`): read
// off plugin.json, the one home of a default.
import template from '../../plugin.json'
import { allFields, type Template } from '../../src/runtime/activation.ts'
import { fallbackOf } from '../../src/runtime/options.ts'

export const DEFAULTS = Object.fromEntries(Object.entries(allFields(template as unknown as Template)).map(([key, field]) => [key, fallbackOf(field)]))
