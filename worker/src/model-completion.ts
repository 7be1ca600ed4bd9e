// The agent's own language model (llm_config, with its fallbacks) asked once,
// outside the conversation: the post-call analysis's model (src/analysis.ts).
import { llm } from '@livekit/agents';
import type { AnalysisModel } from './analysis.ts';

export function modelCompletion(model: llm.LLM): AnalysisModel {
  return {
    async complete(instructions, input) {
      const chatCtx = llm.ChatContext.empty();
      chatCtx.addMessage({ role: 'system', content: instructions });
      chatCtx.addMessage({ role: 'user', content: input });
      const { text } = await model.chat({ chatCtx }).collect();
      return text;
    },
  };
}
