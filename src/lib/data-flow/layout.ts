import type { FlowNode, FlowStatus } from './registry.ts';

/**
 * Geometry of the /data-flow diagram (drawn as SVG on the server): where data comes from on the left,
 * the product as a tall box in the middle, where it goes on the right. A link to or from the product
 * is a horizontal line at its other node's height (so no line crosses another); a link between two
 * nodes of one side bends outwards. Several links between the same pair are spread apart.
 */
export const LEFT_NODES: readonly FlowNode[] = ['forms', 'staff', 'imports', 'buckets', 'bank_statements', 'bureau'];

export const WIDTH = 820;
const NODE_W = 160;
const NODE_H = 40;
const ROW = 64;
const PAD = 20;
const X = { left: 0, center: (WIDTH - NODE_W) / 2, right: WIDTH - NODE_W };

export type NodeBox = { id: FlowNode; x: number; y: number; width: number; height: number; isUsed: boolean };
export type LinkPath = { id: string; status: FlowStatus; d: string; labelX: number; labelY: number };
export type FlowLayout = { width: number; height: number; nodes: NodeBox[]; links: LinkPath[] };

export function flowLayout(
  nodes: readonly FlowNode[],
  links: readonly { id: string; from: FlowNode; to: FlowNode; status: FlowStatus }[],
): FlowLayout {
  const left = nodes.filter((n) => LEFT_NODES.includes(n));
  const right = nodes.filter((n) => n !== 'product' && !LEFT_NODES.includes(n));
  const rows = Math.max(left.length, right.length, 1);
  const height = PAD * 2 + rows * ROW - (ROW - NODE_H);
  const used = new Set(links.flatMap((l) => [l.from, l.to]));
  const boxes = new Map<FlowNode, NodeBox>();
  const column = (list: FlowNode[], x: number) => {
    const top = PAD + ((rows - list.length) * ROW) / 2;
    list.forEach((id, i) =>
      boxes.set(id, { id, x, y: top + i * ROW, width: NODE_W, height: NODE_H, isUsed: used.has(id) }),
    );
  };
  column(left, X.left);
  column(right, X.right);
  if (nodes.includes('product'))
    boxes.set('product', {
      id: 'product',
      x: X.center,
      y: PAD,
      width: NODE_W,
      height: height - PAD * 2,
      isUsed: used.has('product'),
    });

  const seen = new Map<string, number>();
  const paths: LinkPath[] = [];
  for (const link of links) {
    const a = boxes.get(link.from);
    const b = boxes.get(link.to);
    if (!a || !b) continue;
    const pair = [link.from, link.to].sort().join('>');
    const nth = seen.get(pair) ?? 0;
    seen.set(pair, nth + 1);
    const offset = nth === 0 ? 0 : (nth % 2 === 1 ? 1 : -1) * Math.ceil(nth / 2) * 10;
    const other = a.id === 'product' ? b : a;
    const cy = other.y + other.height / 2 + offset;
    if (a.id === 'product' || b.id === 'product') {
      const isLeft = other.x < X.center;
      const x1 = isLeft ? other.x + other.width : X.center + NODE_W;
      const x2 = isLeft ? X.center : other.x;
      paths.push({
        id: link.id,
        status: link.status,
        d: `M ${x1} ${cy} L ${x2} ${cy}`,
        labelX: (x1 + x2) / 2,
        labelY: cy - 6,
      });
      continue;
    }
    // Same side (or across without the product): bend outwards from the boxes' outer edges.
    const isLeft = a.x < X.center;
    const ax = isLeft ? a.x + a.width : a.x;
    const bx = isLeft ? b.x + b.width : b.x;
    const ay = a.y + a.height / 2 + offset;
    const by = b.y + b.height / 2 + offset;
    const bulge = isLeft ? 60 : -60;
    paths.push({
      id: link.id,
      status: link.status,
      d: `M ${ax} ${ay} C ${ax + bulge} ${ay}, ${bx + bulge} ${by}, ${bx} ${by}`,
      labelX: (ax + bx) / 2 + bulge * 0.75,
      labelY: (ay + by) / 2,
    });
  }
  return { width: WIDTH, height, nodes: [...boxes.values()], links: paths };
}
