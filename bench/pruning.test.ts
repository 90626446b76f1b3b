import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PRUNING_GRID, settingArgs } from './pruning.ts';

test("a pruning setting is its options over pocketsphinx's own defaults, so it decodes alike whatever the recognizer's defaults are", () => {
  const before = settingArgs('pocketsphinx-defaults');
  const at = (args: string[], name: string) => args[args.indexOf(name) + 1];
  assert.equal(at(before, '-maxhmmpf'), '30000');
  assert.equal(at(before, '-maxwpf'), '-1');
  assert.equal(at(before, '-bestpath'), 'yes', 'the confidences need the lattice pass');
  const capped = settingArgs('maxhmmpf-3000-maxwpf-20');
  assert.equal(at(capped, '-maxhmmpf'), '3000');
  assert.equal(at(capped, '-maxwpf'), '20');
  assert.equal(capped.length, before.length, 'each option once');
  assert.deepEqual(settingArgs('recognizer-defaults'), [], 'the recognizer decodes with its own defaults');
  for (const name of Object.keys(PRUNING_GRID)) assert.equal(settingArgs(name).length % 2, 0, name);
  assert.throws(() => settingArgs('no-such-setting'), /known: recognizer-defaults, grid/);
});
