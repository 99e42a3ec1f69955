// B.5 / B.19 #28: the checkpoint block a reply ends with.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { BUNDLE_FENCES, extractCheckpointBlock, fenceInfo } from '../../../src/features/checkpoint/fence.ts'
import template from '../../../plugin.json'

const INFO = 'superheroes-checkpoint'
const x = (text: string) => extractCheckpointBlock(text, [INFO])

test('fence info is per package; the bundle accepts every package\'s', () => {
  assert.is(fenceInfo('superheroes'), 'superheroes-checkpoint')
  assert.is(fenceInfo('keel'), 'keel-checkpoint')
  assert.is(extractCheckpointBlock('```keel-checkpoint\nK\n```', ['keel-checkpoint']), 'K')
  assert.is(extractCheckpointBlock('```keel-checkpoint\nK\n```', [INFO]), null, 'a fence not listed is no block')
  // M8: superheroes runs the feature, a manual `/keel:checkpoint` wrote keel's fence: it is saved.
  assert.equal(BUNDLE_FENCES, Object.keys(template.packages).map((p) => `${p}-checkpoint`))
  for (const pkg of ['keel', 'superheroes', 'ws']) assert.is(extractCheckpointBlock(`done\n\`\`\`${pkg}-checkpoint\nN\n\`\`\`\n`, BUNDLE_FENCES), 'N', pkg)
  assert.is(extractCheckpointBlock('```other-checkpoint\nK\n```', BUNDLE_FENCES), null)
})

test('#28: a closed block at the end, body verbatim without a trailing newline', () => {
  assert.is(x('x\n```superheroes-checkpoint\nA\nB\n```\n'), 'A\nB')
  assert.is(x('x\n```superheroes-checkpoint\n  A\n\tB  \n```'), '  A\n\tB  ', 'no de-indent, inner whitespace kept')
})

test('#28: text after the block: null; blank lines after it: fine', () => {
  assert.is(x('x\n```superheroes-checkpoint\nA\nB\n```\n\nthanks'), null)
  assert.is(x('```superheroes-checkpoint\nA\n```\n  \n\t\n'), 'A')
})

test('#28: a tilde fence never counts', () => {
  assert.is(x('~~~superheroes-checkpoint\nA\n~~~\n'), null)
})

test('#28: a checkpoint fence quoted inside another fence is no block', () => {
  assert.is(x('````markdown\n```superheroes-checkpoint\nA\n```\n````\n'), null)
  assert.is(x('~~~\n```superheroes-checkpoint\nA\n```\n~~~'), null)
})

test('#28: unclosed, empty and blank bodies', () => {
  assert.is(x('```superheroes-checkpoint\nA\nB\n'), null)
  assert.is(x('```superheroes-checkpoint\n```'), null)
  assert.is(x('```superheroes-checkpoint\n  \n\t\n```'), null)
})

test('#28: two closed blocks: the second; the last unclosed: null', () => {
  assert.is(x('```superheroes-checkpoint\nfirst\n```\n```superheroes-checkpoint\nsecond\n```'), 'second')
  assert.is(x('```superheroes-checkpoint\nfirst\n```\n```superheroes-checkpoint\nsecond\n'), null)
})

test('#28: CRLF is the same as LF', () => {
  assert.is(x('x\r\n```superheroes-checkpoint\r\nA\r\nB\r\n```\r\n'), 'A\nB')
})

test('#28: indent of 4 is no fence; up to 3 is', () => {
  assert.is(x('    ```superheroes-checkpoint\nA\n    ```'), null)
  assert.is(x('   ```superheroes-checkpoint\nA\n   ```'), 'A')
})

test('#28: a longer closer closes; a shorter one is body', () => {
  assert.is(x('```superheroes-checkpoint\nA\n`````'), 'A')
  assert.is(x('````superheroes-checkpoint\nA\n```\nB\n````'), 'A\n```\nB')
})

test('#28: the info string must be exact, trimmed', () => {
  assert.is(x('```superheroes-checkpoint extra\nA\n```'), null)
  assert.is(x('```  superheroes-checkpoint  \nA\n```'), 'A')
})

test('#28: a ```js line inside the body is body', () => {
  assert.is(x('```superheroes-checkpoint\nA\n```js\ncode\n```'), 'A\n```js\ncode')
})

test('an unclosed other fence swallows the rest', () => {
  assert.is(x('```js\ncode\n```superheroes-checkpoint\nA\n```'), null)
})

test.run()
