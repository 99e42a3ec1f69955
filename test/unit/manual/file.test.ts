// Looking at the manual: where it lands, whether the project may carry it, what it holds.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { MANUAL_CAP_BYTES } from '../../../src/features/manual/constants.ts'
import { inspectManual, type ManualFs } from '../../../src/features/manual/file.ts'
import { contentHash } from '../../../src/features/manual/section.ts'

const REAL = '/p/ai-docs/WORKFLOW.md'

function fs(over: Partial<{ stat: Awaited<ReturnType<ManualFs['stat']>>; statThrows: string; root: string; rootThrows: string; text: string; readThrows: string }> = {}) {
  const reads: string[] = []
  const edges: ManualFs = {
    stat: async () => {
      if (over.statThrows) throw new Error(over.statThrows)
      return 'stat' in over ? over.stat! : { realPath: REAL, isFile: true, bytes: (over.text ?? '# W\n').length }
    },
    realRoot: async () => {
      if (over.rootThrows) throw new Error(over.rootThrows)
      return over.root ?? '/p'
    },
    read: async (path) => {
      reads.push(path)
      if (over.readThrows) throw new Error(over.readThrows)
      return over.text ?? '# W\n'
    },
  }
  return { edges, reads }
}

test('a readable manual inside the project: its content, hash and real path; read by its real path', async () => {
  const { edges, reads } = fs({ text: '# W\r\nbody\n' })
  assert.equal(await inspectManual(edges), { found: true, realPath: REAL, content: { kind: 'ok', text: '# W\nbody', bytes: 10 }, hash: await contentHash('# W\nbody') })
  assert.equal(reads, [REAL])
})

test('no such file: missing (not a manual project); a link leading nowhere too', async () => {
  assert.equal(await inspectManual(fs({ stat: null }).edges), { found: false, problem: { kind: 'missing' } })
  assert.equal(await inspectManual(fs({ stat: { isFile: false, bytes: 0 } }).edges), { found: false, problem: { kind: 'missing' } })
})

test('a symlinked manual landing outside the project root is refused, never read', async () => {
  const { edges, reads } = fs({ stat: { realPath: '/etc/secrets.md', isFile: true, bytes: 10 } })
  assert.equal(await inspectManual(edges), { found: false, problem: { kind: 'outside', realPath: '/etc/secrets.md', realRoot: '/p' } })
  assert.equal(reads, [])
  const sibling = fs({ stat: { realPath: '/p-other/W.md', isFile: true, bytes: 10 } })
  assert.equal((await inspectManual(sibling.edges)).found, false, 'a sibling folder sharing the prefix is outside')
  const linkedInside = fs({ stat: { realPath: '/p/docs/real.md', isFile: true, bytes: 4 } })
  assert.equal((await inspectManual(linkedInside.edges)).found, true, 'a link landing inside is carried')
})

test('a root that is itself a link: compared by real paths', async () => {
  const { edges } = fs({ root: '/private/p', stat: { realPath: '/private/p/ai-docs/WORKFLOW.md', isFile: true, bytes: 4 } })
  assert.equal((await inspectManual(edges)).found, true)
})

test('a folder named like the manual is refused', async () => {
  assert.equal(await inspectManual(fs({ stat: { realPath: REAL, isFile: false, bytes: 0 } }).edges), { found: false, problem: { kind: 'not-a-file', realPath: REAL } })
})

test('over the cap by its size: too large, not read', async () => {
  const { edges, reads } = fs({ stat: { realPath: REAL, isFile: true, bytes: MANUAL_CAP_BYTES + 1 } })
  assert.equal(await inspectManual(edges), { found: true, realPath: REAL, content: { kind: 'too-large', bytes: MANUAL_CAP_BYTES + 1 }, hash: null })
  assert.equal(reads, [])
})

test('grown past the cap between the stat and the read: too large by its text', async () => {
  const text = 'x'.repeat(MANUAL_CAP_BYTES + 5)
  const { edges } = fs({ stat: { realPath: REAL, isFile: true, bytes: 10 }, text })
  assert.equal(await inspectManual(edges), { found: true, realPath: REAL, content: { kind: 'too-large', bytes: MANUAL_CAP_BYTES + 5 }, hash: null })
})

test('empty and binary manuals are found, with no hash to collapse against', async () => {
  assert.equal(await inspectManual(fs({ text: '' }).edges), { found: true, realPath: REAL, content: { kind: 'empty', bytes: 0 }, hash: null })
  assert.equal(await inspectManual(fs({ text: 'PK\u0003\u0004\u0000' }).edges), { found: true, realPath: REAL, content: { kind: 'binary', bytes: 5 }, hash: null })
})

test('unreadable: a failing stat, root or read is an answer, never a throw', async () => {
  assert.equal(await inspectManual(fs({ statThrows: 'EACCES' }).edges), { found: false, problem: { kind: 'unreadable', detail: 'EACCES' } })
  assert.equal(await inspectManual(fs({ rootThrows: 'no root' }).edges), { found: false, problem: { kind: 'unreadable', detail: 'no root' } })
  assert.equal(await inspectManual(fs({ readThrows: 'EIO' }).edges), { found: false, problem: { kind: 'unreadable', detail: 'EIO' } })
})

test.run()
