import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { OpenAiChatSummarizer } from './openai-chat.ts';
import { createSummarizers, UnknownSummaryModelError } from './registry.ts';

const BASE = 'http://llm.test';

describe('createSummarizers', () => {
  it('extractive by default and by name', () => {
    const s = createSummarizers({});
    assert.equal(s.byModel(undefined).name, 'extractive');
    assert.equal(s.byModel('extractive').name, 'extractive');
    assert.equal(s.byModel('extractive', 'gpt-4o').name, 'extractive');
    assert.equal(s.default.name, 'extractive');
  });

  it('openai-compatible takes its chat model from model_name, then MAS_SUMMARY_MODEL', () => {
    const s = createSummarizers({ MAS_SUMMARY_URL: BASE, MAS_SUMMARY_MODEL: 'qwen2.5' });
    const a = s.byModel('openai-compatible', 'gpt-4o-mini') as OpenAiChatSummarizer;
    assert.equal(a.name, 'openai-compatible');
    assert.equal(a.model, 'gpt-4o-mini');
    assert.equal((s.byModel('openai-compatible') as OpenAiChatSummarizer).model, 'qwen2.5');
  });

  it('any other model name goes to the endpoint when one is configured, else 422', () => {
    const configured = createSummarizers({ MAS_SUMMARY_URL: BASE });
    assert.equal((configured.byModel('llama3') as OpenAiChatSummarizer).model, 'llama3');
    assert.equal((configured.byModel(undefined, 'llama3') as OpenAiChatSummarizer).model, 'llama3');
    const bare = createSummarizers({});
    assert.throws(() => bare.byModel('llama3'), UnknownSummaryModelError);
    assert.throws(() => bare.byModel(undefined, 'llama3'), /MAS_SUMMARY_URL/);
    // Named explicitly, the adapter is chosen and fails as a missing dependency when it runs.
    assert.equal(bare.byModel('openai-compatible').name, 'openai-compatible');
  });
});
