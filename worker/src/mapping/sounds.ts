// background_sound → the BackgroundAudioPlayer's ambient and thinking sounds:
// a preset names one of LiveKit Agents' built-in clips (`office-ambience`,
// `keyboard-typing`, `keyboard-typing2`, `hold-music`); anything else is a file
// or URL, decoded by ffmpeg.
import { voice } from '@livekit/agents';
import type { BackgroundSound } from '../agent.ts';
import type { Unhonoured } from './unhonoured.ts';

const presets = new Map<string, voice.BuiltinAudioClip>(
  Object.values(voice.BuiltinAudioClip).map((clip) => [clip.replace(/\.ogg$/, '').replaceAll('_', '-'), clip]),
);

/** A built-in clip for a preset name (`office-ambience`, `OFFICE_AMBIENCE`, `office-ambience.ogg`), else the file. */
export function soundSource(name: string): voice.AudioSourceType {
  const preset = name
    .toLowerCase()
    .replace(/\.ogg$/, '')
    .replaceAll('_', '-');
  return presets.get(preset) ?? name;
}

/** The player's options; null when the agent has no background sound, or turns it off. */
export function backgroundAudio(
  config: BackgroundSound | null,
  unhonoured: Unhonoured,
): voice.BackgroundAudioPlayerOptions | null {
  if (!config || config.enabled === false) return null;
  if (config.initial_volume !== undefined && config.initial_volume !== config.volume) {
    unhonoured.push({
      member: 'background_sound.initial_volume',
      reason: 'the BackgroundAudioPlayer plays a sound at one volume',
    });
  }
  const thinking = (config.thinking_sound ?? []).map((sound) => ({
    source: soundSource(sound.sound),
    ...(sound.volume !== undefined ? { volume: sound.volume } : {}),
    ...(sound.probability !== undefined ? { probability: sound.probability } : {}),
  }));
  return {
    ambientSound: { source: soundSource(config.file), volume: config.volume ?? config.initial_volume ?? 1 },
    ...(thinking.length > 0 ? { thinkingSound: thinking } : {}),
  };
}
