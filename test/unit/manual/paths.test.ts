// Paths as the manual compares them, and where the manualFile option puts the manual.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { folderOf, foldersUp, isUnder, joinPath, manualLocation, normalizePath } from '../../../src/features/manual/paths.ts'

test('normalizePath: separators, dots, climbing', () => {
  const table: [string, string][] = [
    ['/p/ai-docs/WORKFLOW.md', '/p/ai-docs/WORKFLOW.md'],
    ['/p//ai-docs/./x/../WORKFLOW.md/', '/p/ai-docs/WORKFLOW.md'],
    ['/../..', '/'],
    ['/', '/'],
    ['C:\\p\\ai-docs\\W.md', 'C:/p/ai-docs/W.md'],
    ['C:\\..\\x', 'C:/x'],
    ['a/b/../../..', '..'],
    ['./a', 'a'],
    ['.', '.'],
    ['', '.'],
    ['../x/../../y', '../../y'],
  ]
  for (const [input, want] of table) assert.is(normalizePath(input), want, input)
})

test('isUnder: strictly beneath, at any depth, by whole segments', () => {
  assert.ok(isUnder('/p/ai-docs', '/p/ai-docs/WORKFLOW.md'))
  assert.ok(isUnder('/p/ai-docs/', '/p/ai-docs/deep/x.md'))
  assert.ok(isUnder('/', '/x'))
  assert.ok(isUnder('C:\\p', 'C:/p/x'))
  assert.not.ok(isUnder('/p/ai-docs', '/p/ai-docs'), 'the folder itself')
  assert.not.ok(isUnder('/p/ai-docs', '/p/ai-docs-old/x.md'), 'a sibling sharing the prefix')
  assert.not.ok(isUnder('/p/ai-docs', '/p/ai-docs/../x.md'))
  assert.not.ok(isUnder('/p', '/q/x'))
})

test('folderOf', () => {
  assert.equal(['/p/ai-docs/W.md', '/W.md', 'C:/W.md', 'W.md', '/p/a/'].map(folderOf), ['/p/ai-docs', '/', 'C:/', '.', '/p'])
})

test('manualLocation: the option joined to the root; absolute or climbing values refused', () => {
  assert.equal(manualLocation('/p', 'ai-docs/WORKFLOW.md'), { path: '/p/ai-docs/WORKFLOW.md', display: 'ai-docs/WORKFLOW.md' })
  assert.equal(manualLocation('/p/', ' ./docs//W.md '), { path: '/p/docs/W.md', display: 'docs/W.md' })
  assert.equal(manualLocation('/', 'W.md'), { path: '/W.md', display: 'W.md' })
  assert.equal(manualLocation('C:\\p', 'a\\W.md'), { path: 'C:/p/a/W.md', display: 'a/W.md' })
  assert.equal(manualLocation('/p', 'a/../W.md'), { path: '/p/W.md', display: 'W.md' })
  assert.equal(manualLocation('/p', ''), { problem: 'manualFile is empty' })
  assert.equal(manualLocation('/p', 7), { problem: 'manualFile is empty' })
  assert.equal(manualLocation('/p', '/etc/passwd'), { problem: 'manualFile "/etc/passwd" is absolute; it is read relative to the project root' })
  assert.equal(manualLocation('/p', 'C:\\x'), { problem: 'manualFile "C:\\x" is absolute; it is read relative to the project root' })
  assert.equal(manualLocation('/p', '../W.md'), { problem: 'manualFile "../W.md" climbs out of the project root' })
  assert.equal(manualLocation('/p', 'a/../..'), { problem: 'manualFile "a/../.." climbs out of the project root' })
  assert.equal(manualLocation('/p', '.'), { problem: 'manualFile "." climbs out of the project root' })
})

test('foldersUp: the folder and those above it, nearest first, up to the stop (left out) or the root', () => {
  assert.equal(foldersUp('/main', '/main'), [], 'the stop itself: none')
  assert.equal(foldersUp('/main/a/b', '/main/'), ['/main/a/b', '/main/a'])
  assert.equal(foldersUp('/wt/feature/sub', '/main'), ['/wt/feature/sub', '/wt/feature', '/wt', '/'], 'a stop never met: up to the root')
  assert.equal(foldersUp('C:\\wt\\x', 'D:/main'), ['C:/wt/x', 'C:/wt', 'C:/'])
  assert.equal(foldersUp('a/b', '/main'), ['a/b', 'a', '.'])
})

test('joinPath', () => {
  assert.is(joinPath('/wt/', '.git'), '/wt/.git')
  assert.is(joinPath('/', '.git'), '/.git')
  assert.is(joinPath('C:\\wt', 'ai-docs/WORKFLOW.md'), 'C:/wt/ai-docs/WORKFLOW.md')
})

test.run()
