/** Reading pactl's output (sound-server.ts): subscribe lines, and the JSON lists of sources and capture streams. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSourceOutputs, parseSources, parseSubscribeLine } from './sound-server.ts';

test('subscribe lines', () => {
  assert.deepEqual(parseSubscribeLine("Event 'new' on source-output #12"), { kind: 'new', facility: 'source-output', index: 12 });
  assert.deepEqual(parseSubscribeLine("Event 'remove' on client #4\n"), { kind: 'remove', facility: 'client', index: 4 });
  assert.equal(parseSubscribeLine("Event 'new' on source-output"), null);
  assert.equal(parseSubscribeLine('Connection failure: Connection refused'), null);
  assert.equal(parseSubscribeLine(''), null);
});

const SOURCES = JSON.stringify([
  { index: 1, name: 'sim.monitor', monitor_source: 'sim', properties: { 'device.class': 'monitor' } },
  { index: 2, name: 'alsa_input.usb', monitor_source: 'n/a', properties: { 'alsa.card': '1', 'alsa.device': '0' } },
  { index: 3, name: 'virtual', monitor_source: 'n/a', properties: {} },
]);

test('sources: monitors, hardware inputs and their ALSA card and device', () => {
  const sources = parseSources(SOURCES);
  assert.deepEqual(sources.get(1), { name: 'sim.monitor', monitorOf: 'sim', alsa: null });
  assert.deepEqual(sources.get(2), { name: 'alsa_input.usb', monitorOf: null, alsa: { card: 1, device: 0 } });
  assert.deepEqual(sources.get(3), { name: 'virtual', monitorOf: null, alsa: null });
  assert.equal(parseSources('not json').size, 0);
  assert.equal(parseSources('').size, 0);
});

test('capture streams with their application, binary, process and source', () => {
  const outputs = JSON.stringify([
    {
      index: 7,
      source: 2,
      properties: { 'application.name': 'Microsoft Teams', 'application.process.binary': 'teams', 'application.process.id': '4242' },
    },
    { index: 8, source: 1, properties: {} },
    { index: 9, source: 99, properties: { 'application.name': 'gone' } },
  ]);
  const streams = parseSourceOutputs(outputs, parseSources(SOURCES));
  assert.deepEqual(
    streams.map((s) => [s.index, s.appName, s.binary, s.pid, s.source.name]),
    [
      [7, 'Microsoft Teams', 'teams', 4242, 'alsa_input.usb'],
      [8, '', '', null, 'sim.monitor'],
    ],
  );
  assert.deepEqual(parseSourceOutputs('{"not":"an array"}', new Map()), []);
});
