import { describe, expect, it } from 'vitest';
import { flowLayout } from './layout.ts';
import { FLOW_NODES } from './registry.ts';

describe('data-flow layout', () => {
  const layout = flowLayout(FLOW_NODES, [
    { id: 'a', from: 'forms', to: 'product', status: 'ok' },
    { id: 'b', from: 'forms', to: 'product', status: 'idle' },
    { id: 'c', from: 'product', to: 'messages', status: 'warning' },
    { id: 'd', from: 'exports', to: 'downloads', status: 'error' },
  ]);
  const node = (id: string) => layout.nodes.find((n) => n.id === id)!;

  it('puts sources left, the product in the middle spanning the height, destinations right', () => {
    expect(node('forms').x).toBe(0);
    expect(node('product').x).toBeGreaterThan(node('forms').x + node('forms').width);
    expect(node('messages').x).toBeGreaterThan(node('product').x + node('product').width);
    expect(node('product').height).toBeGreaterThan(node('forms').height * 4);
    expect(node('forms').isUsed).toBe(true);
    expect(node('bureau').isUsed).toBe(false);
    for (const n of layout.nodes) expect(n.y + n.height).toBeLessThanOrEqual(layout.height);
  });

  it('draws product links as horizontal lines, spreads two links of one pair, bends same-side links', () => {
    const [a, b, c, d] = layout.links;
    expect(a.d).toMatch(/^M 160 (\d+) L 330 \1$/);
    expect(b.d).not.toBe(a.d);
    expect(c.d).toMatch(/^M 490 (\d+) L 660 \1$/);
    expect(d.d).toMatch(/^M 660 .* C /);
    expect(layout.links.map((l) => l.status)).toEqual(['ok', 'idle', 'warning', 'error']);
  });
});
