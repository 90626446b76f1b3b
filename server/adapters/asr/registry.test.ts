import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createRecognizers, RecognizerChoiceError, UnknownModelError, UnknownProviderError } from './registry.ts';

describe('createRecognizers', () => {
  let dir: string;
  let psRoot: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'mas-asr-registry-'));
    mkdirSync(join(dir, 'data', 'models'), { recursive: true });
    writeFileSync(join(dir, 'data', 'models', 'ggml-small.bin'), '');
    psRoot = join(dir, 'ps');
    mkdirSync(join(psRoot, 'en-us', 'en-us'), { recursive: true });
    writeFileSync(join(psRoot, 'en-us', 'en-us', 'mdef'), '');
    writeFileSync(join(psRoot, 'en-us', 'en-us.lm.bin'), '');
    writeFileSync(join(psRoot, 'en-us', 'cmudict-en-us.dict'), '');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const make = (env: NodeJS.ProcessEnv = {}) => createRecognizers({ dataDir: join(dir, 'data'), env, pocketsphinxRoot: psRoot });

  it('defaults to pocketsphinx', () => {
    const r = make();
    assert.equal(r.default.name, 'pocketsphinx');
    assert.equal(r.byProvider(undefined, undefined).name, 'pocketsphinx');
    assert.equal(r.byProvider('', '').name, 'pocketsphinx');
  });

  it('picks by provider, with accepted spellings', () => {
    const r = make({ MAS_TRANSCRIBE_URL: 'http://localhost:9' });
    assert.equal(r.byProvider('pocketsphinx', undefined).name, 'pocketsphinx');
    assert.equal(r.byProvider('whisper.cpp', undefined).name, 'whisper.cpp');
    assert.equal(r.byProvider('whisper-cpp', 'ggml-small').name, 'whisper.cpp');
    assert.equal(r.byProvider('openai-compatible', 'whisper-1').name, 'openai-compatible');
    assert.equal(r.byProvider('OpenAI', undefined).name, 'openai-compatible');
  });

  it('without a provider, the model says which', () => {
    const r = make();
    assert.equal(r.byProvider(undefined, 'pocketsphinx-en-us').name, 'pocketsphinx');
    assert.equal(r.byProvider(undefined, 'ggml-small').name, 'whisper.cpp');
  });

  it('unknown providers and models are choice errors (422), with what there is', () => {
    const r = make();
    assert.throws(
      () => r.byProvider('deepgram', undefined),
      (e: unknown) =>
        e instanceof UnknownProviderError &&
        e instanceof RecognizerChoiceError &&
        e.field === 'provider' &&
        /pocketsphinx, whisper\.cpp, openai-compatible/.test(e.message),
    );
    assert.throws(
      () => r.byProvider(undefined, 'ggml-large'),
      (e: unknown) => e instanceof UnknownModelError && /pocketsphinx-en-us, ggml-small/.test(e.message),
    );
    assert.throws(() => r.byProvider(undefined, 'pocketsphinx-de'), UnknownModelError);
    assert.throws(() => r.byProvider('pocketsphinx', 'ggml-small'), UnknownModelError);
    assert.throws(() => r.byProvider('whisper.cpp', 'pocketsphinx-en-us'), UnknownModelError);
  });

  it('configuration comes from the environment; an unconfigured provider is selectable but unavailable', async () => {
    const unset = make();
    assert.equal(await unset.all['whisper.cpp'].available(), false);
    assert.equal(await unset.all['openai-compatible'].available(), false);
    const set = make({ MAS_WHISPER_CPP_BIN: '/bin/sh' });
    assert.equal(await set.all['whisper.cpp'].available(), true);
  });
});
