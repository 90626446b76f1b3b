/** Which entry of meeting-detection.apps a capture stream belongs to (matching.ts, decision 142). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { matchApp } from './matching.ts';

const DEFAULT_APPS = ['zoom', 'teams', 'meet', 'webex', 'slack'];

test('an entry matches a whole word of the application name or the binary, case-insensitive', () => {
  assert.equal(matchApp(DEFAULT_APPS, { appName: 'Microsoft Teams', binary: 'electron' }), 'teams');
  assert.equal(matchApp(DEFAULT_APPS, { appName: 'ZOOM VoiceEngine', binary: 'zoom.real' }), 'zoom');
  assert.equal(matchApp(DEFAULT_APPS, { appName: '', binary: '/opt/zoom/zoom' }), 'zoom');
  assert.equal(matchApp(DEFAULT_APPS, { appName: 'teams-for-linux', binary: 'teams-for-linux' }), 'teams');
  assert.equal(matchApp(['Google Meet'], { appName: 'google meet - firefox', binary: 'firefox' }), 'Google Meet');
});

test('part of a word is not a match', () => {
  assert.equal(matchApp(DEFAULT_APPS, { appName: 'Meeting notes', binary: 'notes' }), null);
  assert.equal(matchApp(DEFAULT_APPS, { appName: 'slackware mixer', binary: 'mixer' }), null);
  assert.equal(matchApp(DEFAULT_APPS, { appName: 'Firefox', binary: 'firefox' }), null);
  assert.equal(matchApp(['Google Meet'], { appName: 'Meet Google', binary: 'x' }), null);
  assert.equal(matchApp([' '], { appName: 'anything', binary: 'x' }), null, 'an entry without a word matches nothing');
});

test('the first entry that matches is the meeting key', () => {
  assert.equal(matchApp(['firefox', 'meet'], { appName: 'Meet', binary: 'firefox' }), 'firefox');
});
