// Judges message lists with the AI SDK itself (the npm package `ai`, installed by
// tests/npm_clients.py): run by tests/conformance/test_ai_sdk.py as
// `node ai_sdk_judge.cjs CLIENT_FOLDER`, it reads {"kind": "ui" | "model", "messages": [...]}
// on stdin and prints what the SDK made of it, as JSON:
//   valid      the SDK's schema accepts the list (AI SDK 5+: validateUIMessages, or
//              modelMessageSchema for each ModelMessage; AI SDK 4: convertToCoreMessages for a
//              UIMessage list, which throws for an invocation without a result, and
//              coreMessageSchema for each CoreMessage), else `error` says why;
//   prompt     the model messages (converted first for a UIMessage list) pass the SDK's own
//              prompt check, which generateText runs before any request (AI SDK 5+: a tool call
//              without a result is MissingToolResultsError), else `error` says why;
//   calls, results   the ids of the model messages' tool-call parts, but the provider's own
//              (providerExecuted), which the SDK leaves to the provider, and of its
//              tool-result parts.
const { createRequire } = require('node:module');
const path = require('node:path');

const need = createRequire(path.resolve(process.argv[2], 'package.json'));
const ai = need('ai');
const mocks = need('ai/test');
const modern = typeof ai.validateUIMessages === 'function';

const model = modern
  ? new mocks.MockLanguageModelV3({
      doGenerate: async () => ({
        content: [{ type: 'text', text: 'ok' }],
        finishReason: 'stop',
        usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
        warnings: [],
      }),
    })
  : new mocks.MockLanguageModelV1({
      doGenerate: async () => ({
        text: 'ok',
        finishReason: 'stop',
        usage: { promptTokens: 1, completionTokens: 1 },
        rawCall: { rawPrompt: null, rawSettings: {} },
      }),
    });

async function converted(kind, messages) {
  if (kind === 'ui') {
    if (!modern) return ai.convertToCoreMessages(messages);
    await ai.validateUIMessages({ messages });
    return ai.convertToModelMessages(messages);
  }
  const schema = modern ? ai.modelMessageSchema : ai.coreMessageSchema;
  for (const message of messages) schema.parse(message);
  return messages;
}

async function judge({ kind, messages }) {
  let modelMessages;
  try {
    modelMessages = await converted(kind, messages);
  } catch (error) {
    return { valid: false, prompt: false, error: `${error.name}: ${error.message}`.slice(0, 500) };
  }
  const parts = modelMessages.flatMap(m => (Array.isArray(m.content) ? m.content : []));
  const ids = type =>
    parts.filter(p => p.type === type && p.providerExecuted !== true).map(p => p.toolCallId);
  const seen = { calls: ids('tool-call'), results: ids('tool-result') };
  try {
    await ai.generateText({ model, messages: modelMessages });
  } catch (error) {
    return { valid: true, prompt: false, error: `${error.name}: ${error.message}`, ...seen };
  }
  return { valid: true, prompt: true, ...seen };
}

let input = '';
process.stdin.on('data', chunk => (input += chunk));
process.stdin.on('end', async () => {
  process.stdout.write(JSON.stringify(await judge(JSON.parse(input))));
});
