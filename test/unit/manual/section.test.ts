// The section: the file classified, the text built from it, appended once; the content hash.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { MANUAL_CAP_BYTES, sectionIdOf } from '../../../src/features/manual/constants.ts'
import { byteLength, canonical, classifyText, contentHash, sectionText, sha256Hex, withSection } from '../../../src/features/manual/section.ts'
import { headerLine, keyLine, MAILBOX_LINE } from '../../../src/features/manual/strings.ts'

const FILE = 'ai-docs/WORKFLOW.md'

test('the section id and the header line (design §4.2)', () => {
  assert.is(sectionIdOf('keel'), 'keel:workflow-manual')
  assert.is(headerLine(FILE), "This project's workflow manual, ai-docs/WORKFLOW.md, is below as it read when this system prompt was built; do not Read it to learn it, Read it when you are about to edit it.")
  assert.is(keyLine('K'), 'Your mailbox key for this conversation is `K`; other sessions reach you with mailbox_send or SendMessage to `K`.')
})

test('canonical: BOM, line ends and final newlines only', () => {
  assert.is(canonical('\uFEFF# A\r\nb\rc\n\n'), '# A\nb\nc')
  assert.is(canonical('  a  \n'), '  a  ')
  assert.is(canonical('a\uFEFF'), 'a\uFEFF', 'only a leading mark')
})

test('sha256Hex is SHA-256 hex; contentHash is over the canonical form', async () => {
  assert.is(await sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
  assert.is(await sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad')
  assert.is(await contentHash('# A\r\nb\n'), await contentHash('\uFEFF# A\nb'))
  assert.is.not(await contentHash('# A\nb'), await contentHash('# A\nc'))
})

test('classifyText: ok, empty, binary (NUL or U+FFFD), too large (by UTF-8 bytes)', () => {
  assert.equal(classifyText('# W\nbody\n'), { kind: 'ok', text: '# W\nbody', bytes: 9 })
  assert.equal(classifyText(''), { kind: 'empty', bytes: 0 })
  assert.equal(classifyText(' \n\t\r\n'), { kind: 'empty', bytes: 5 })
  assert.equal(classifyText('a\u0000b'), { kind: 'binary', bytes: 3 })
  assert.equal(classifyText('caf\uFFFD'), { kind: 'binary', bytes: 6 })
  assert.equal(classifyText('x'.repeat(MANUAL_CAP_BYTES)).kind, 'ok', 'the cap itself is carried')
  assert.equal(classifyText('x'.repeat(MANUAL_CAP_BYTES + 1)), { kind: 'too-large', bytes: MANUAL_CAP_BYTES + 1 })
  assert.equal(classifyText('é'.repeat(40000)), { kind: 'too-large', bytes: 80000 }, 'bytes, not characters')
  assert.equal(classifyText('abc', 2), { kind: 'too-large', bytes: 3 })
  assert.is(byteLength('é€'), 5)
})

test('sectionText: header, the optional lines, then the manual, blocks apart by a blank line', () => {
  const ok = classifyText('# W\nbody\n')
  assert.is(sectionText(FILE, ok), `${headerLine(FILE)}\n\n# W\nbody`)
  assert.is(sectionText(FILE, ok, { key: 'K' }), `${headerLine(FILE)}\n\n${keyLine('K')}\n\n# W\nbody`)
  assert.is(sectionText(FILE, ok, { key: 'K', mailboxOn: true }), `${headerLine(FILE)}\n\n${keyLine('K')}\n\n${MAILBOX_LINE}\n\n# W\nbody`)
  assert.is(sectionText(FILE, ok, { mailboxOn: true }), `${headerLine(FILE)}\n\n${MAILBOX_LINE}\n\n# W\nbody`, 'the mailbox line needs no key')
  assert.is(sectionText(FILE, ok, { key: '  ', mailboxOn: false }), `${headerLine(FILE)}\n\n# W\nbody`, 'a blank key is no key')
})

test('sectionText: the too-large, binary and empty variants name the file and carry no content', () => {
  assert.is(sectionText(FILE, { kind: 'too-large', bytes: 70000 }),
    "This project's workflow manual, ai-docs/WORKFLOW.md, is not in this system prompt: it is 70000 bytes, over the 65536 bytes the prompt carries. Read it when you need it, in parts (offset and limit) if it is long.")
  assert.is(sectionText(FILE, { kind: 'binary', bytes: 3 }),
    "This project's workflow manual, ai-docs/WORKFLOW.md, is not in this system prompt: it is not UTF-8 text (it holds a NUL byte or bytes that are not UTF-8).")
  assert.is(sectionText(FILE, { kind: 'empty', bytes: 0 }, { key: 'K' }), `This project's workflow manual, ai-docs/WORKFLOW.md, is empty.\n\n${keyLine('K')}`)
})

test('withSection: appended last as session; never twice', () => {
  const sections = [{ id: 'intro', text: 'i', scope: 'shared' as const }, { id: 'memory', text: 'm', scope: 'session' as const }]
  const section = { id: 'keel:workflow-manual', text: 'T' }
  const out = withSection(sections, section)!
  assert.equal(out, [...sections, { id: 'keel:workflow-manual', text: 'T', scope: 'session' }])
  assert.is(withSection(out, section), undefined, 'already there: the list stays as it is')
  assert.is(withSection([{ id: 'keel:workflow-manual', text: 'other copy', scope: 'session' }], section), undefined)
  assert.equal(sections.length, 2, 'the input list is not changed')
})

test.run()
