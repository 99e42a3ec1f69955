// The one validation path (src/lib/shape.ts): fields, optional and unknown keys, `'*'`, checks that pick a shape.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { either, fits, is, isRecord, isString, listOf, problemsOf, type Shape } from '../../src/lib/shape.ts'

const Name = is(isString, 'must be a string')
const SHAPE: Shape = {
  name: Name,
  'size?': is((n) => Number.isInteger(n), 'must be whole'),
  tags: listOf(Name, 'must be a list of strings'),
  'meta?': { '*': Name },
  // A check that picks the fields its value is checked against: "none", or an object of one form.
  form: (f) => (f === 'none' ? undefined : isRecord(f) && 'a' in f ? { a: Name } : 'must be "none" or {"a": …}'),
}

test('every problem is named by its path; optional fields may be absent; other keys are unknown', () => {
  assert.equal(problemsOf({ name: 'x', tags: ['t'], form: 'none' }, SHAPE, 'top'), [])
  assert.equal(problemsOf({ tags: [], size: 1.5, extra: 1, form: 'some' }, SHAPE, 'top'), [
    'top.name: missing',
    'top.size: must be whole',
    'top.tags: must be a list of strings',
    'top.form: must be "none" or {"a": …}',
    'top.extra: unknown key',
  ])
  assert.equal(problemsOf(5, SHAPE, 'top'), ['top: must be an object'])
  assert.equal(problemsOf([], SHAPE), ['must be an object'], 'a list is no object, and the top has no path')
})

test("'*' checks every field not named, with its name; a check may pick the fields to check against", () => {
  const keyed: Shape = { '*': (value, key) => (key.startsWith('x-') && isString(value) ? undefined : `bad ${key}`) }
  assert.equal(problemsOf({ 'x-a': '1', b: '2' }, keyed, 'h'), ['h.b: bad b'])
  assert.equal(problemsOf({ name: 'x', tags: ['t'], form: { a: 1, b: 2 } }, SHAPE), ['form.a: must be a string', 'form.b: unknown key'], 'the picked fields check the value itself')
  assert.equal(problemsOf({ k: 'x' }, { k: () => ({ a: Name }) }, 'p'), ['p.k: must be an object'])
})

test('fits and either', () => {
  assert.ok(fits('x', Name))
  assert.not.ok(fits(1, Name))
  const oneOf = either('must be a string or {n}', Name, { n: Name })
  assert.is(oneOf('s', ''), undefined)
  assert.is(oneOf({ n: 's' }, ''), undefined)
  assert.is(oneOf({ n: 1 }, ''), 'must be a string or {n}')
})

test.run()
