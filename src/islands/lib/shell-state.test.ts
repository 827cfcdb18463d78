import { describe, expect, it } from 'vitest';
import { shellStateJson, type ShellState } from './shell-state.ts';

describe('shell state written into the page', () => {
  const state = {
    idleSeconds: 900,
    user: { display_name: 'Eve </script><script>alert(1)</script> <!-- x' },
    plan: [],
  } as unknown as ShellState;

  it('cannot close its script element or open a comment, whatever a value holds', () => {
    const json = shellStateJson(state);
    expect(json).not.toMatch(/<\/script/i);
    expect(json).not.toContain('<!--');
    expect(json).not.toContain('<');
  });

  it('reads back as the same state', () => {
    expect(JSON.parse(shellStateJson(state))).toEqual(state);
  });
});
