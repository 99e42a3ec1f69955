// Each feature's `$` binder, called once per load by name: the loader lets `$` be handed only to a
// function declared at a module's top, never through a property or a list, so this is the one
// place that names them all (a unit test pins it to features/index.ts).
import type { EngineInterface } from 'claude-code'
import { bindCaptions } from './captions/bind.ts'
import { bindCheckpoint } from './checkpoint/bind.ts'
import { bindManual } from './manual/bind.ts'
import { bindMailbox } from './mailbox/bind.ts'
import { bindReconnect } from './reconnect/bind.ts'
import { bindRouting } from './routing/bind.ts'
import { bindTiming } from './timing/bind.ts'
import { bindWindow } from './window/bind.ts'

export function bindFeatures($: EngineInterface): Readonly<Record<string, unknown>> {
  return {
    routing: bindRouting($),
    captions: bindCaptions($),
    manual: bindManual($),
    checkpoint: bindCheckpoint($),
    window: bindWindow($),
    mailbox: bindMailbox($),
    timing: bindTiming($),
    reconnect: bindReconnect($),
  }
}
