import { html } from './html.js';
import type { SafeHtml } from './html.js';
import { emptyState } from './layout.js';
import type { LinkedDevice, TopologyLinkView } from './documents.js';

// The network's topology as server-rendered SVG: its devices (and the LLDP
// neighbours netgraph does not know) in rows by role, a line for each pair
// that LLDP sees linked. Presentation attributes only, no inline style, so
// the dashboard's Content-Security-Policy holds.

const WIDTH = 960;
const ROW_HEIGHT = 110;
const NODE = { width: 150, height: 40 };
/** Rows top to bottom: gateways, switches, access points, the rest (and neighbours netgraph does not know). */
const ROW_OF: Readonly<Record<string, number>> = { CONTROLLER: 0, CELLULAR_GATEWAY: 0, SWITCH: 1, ACCESS_POINT: 2 };
const LAST_ROW = 3;

interface Node {
  readonly key: string;
  readonly label: string;
  readonly row: number;
  /** Null for a neighbour that is no device of the network. */
  readonly deviceUUID: string | null;
}

interface Edge {
  readonly a: string;
  readonly b: string;
  /** The ports each end sees the other on, by node key. */
  readonly ports: Map<string, Set<string>>;
}

const nodeOfDevice = (d: LinkedDevice): Node => ({ key: d.UUID, label: d.label, row: ROW_OF[d.deviceType] ?? LAST_ROW, deviceUUID: d.UUID });

/** The nodes and the undirected edges of the links: a link both ends report is one edge. */
export function topologyGraph(links: readonly TopologyLinkView[]): { nodes: Node[]; edges: Edge[] } {
  const nodes = new Map<string, Node>();
  const edges = new Map<string, Edge>();
  for (const link of links) {
    const local = nodeOfDevice(link.virtualDevice);
    const remote: Node = link.neighbor.remoteDevice
      ? nodeOfDevice(link.neighbor.remoteDevice)
      : { key: `chassis:${link.neighbor.chassisID}`, label: link.neighbor.systemName ?? link.neighbor.chassisID, row: LAST_ROW, deviceUUID: null };
    for (const node of [local, remote]) if (!nodes.has(node.key)) nodes.set(node.key, node);
    const [a, b] = [local.key, remote.key].sort() as [string, string];
    const edge = edges.get(`${a}|${b}`) ?? { a, b, ports: new Map<string, Set<string>>() };
    edge.ports.set(local.key, (edge.ports.get(local.key) ?? new Set()).add(link.phyInterface.label ?? `port ${link.phyInterface.portNumber}`));
    edges.set(`${a}|${b}`, edge);
  }
  return { nodes: [...nodes.values()], edges: [...edges.values()] };
}

/** Where each node goes: its row, spread evenly across it in label order. */
function layout(nodes: readonly Node[]): { positions: Map<string, { x: number; y: number }>; height: number } {
  const rows = [...new Set(nodes.map((n) => n.row))].sort((a, b) => a - b);
  const positions = new Map<string, { x: number; y: number }>();
  rows.forEach((row, r) => {
    const inRow = nodes.filter((n) => n.row === row).sort((a, b) => a.label.localeCompare(b.label) || a.key.localeCompare(b.key));
    inRow.forEach((n, i) => positions.set(n.key, { x: Math.round(((i + 0.5) * WIDTH) / inRow.length), y: 30 + r * ROW_HEIGHT + NODE.height / 2 }));
  });
  return { positions, height: 30 + rows.length * ROW_HEIGHT - (ROW_HEIGHT - NODE.height) + 30 };
}

const shorten = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The topology section's content: the drawing, or an empty state when no device reported an LLDP neighbour. */
export function renderTopology(networkId: string, links: readonly TopologyLinkView[]): SafeHtml {
  if (links.length === 0) return emptyState('No links', 'No device of this network has reported an LLDP neighbour yet.');
  const { nodes, edges } = topologyGraph(links);
  const { positions, height } = layout(nodes);
  const at = (key: string) => positions.get(key) ?? { x: 0, y: 0 };
  const labelOf = new Map(nodes.map((n) => [n.key, n.label]));
  const lines = edges.map((e) => {
    const [from, to] = [at(e.a), at(e.b)];
    const end = (key: string) => `${labelOf.get(key) ?? ''}${e.ports.has(key) ? ` (${[...(e.ports.get(key) ?? [])].join(', ')})` : ''}`;
    return html`<line class="topology-link" x1="${from.x}" y1="${from.y}" x2="${to.x}" y2="${to.y}" stroke="currentColor" stroke-width="2"><title>${end(e.a)} — ${end(e.b)}</title></line>`;
  });
  const boxes = nodes.map((n) => {
    const { x, y } = at(n.key);
    const box = html`<rect x="${x - NODE.width / 2}" y="${y - NODE.height / 2}" width="${NODE.width}" height="${NODE.height}" rx="6" fill="white" stroke="currentColor" stroke-width="1.5"${n.deviceUUID === null ? html` stroke-dasharray="4 3"` : ''}/><text x="${x}" y="${y + 5}" text-anchor="middle" font-size="13" fill="currentColor">${shorten(n.label, 20)}</text><title>${n.label}</title>`;
    return n.deviceUUID === null
      ? html`<g class="topology-node topology-external">${box}</g>`
      : html`<a class="topology-node" data-device="${n.deviceUUID}" href="/networks/${networkId}/devices/${n.deviceUUID}">${box}</a>`;
  });
  return html`<figure class="topology"><svg viewBox="0 0 ${WIDTH} ${height}" width="100%" role="img" aria-label="Network topology: ${nodes.length} devices, ${edges.length} links">${lines}${boxes}</svg>
<figcaption class="muted">Links from LLDP, as the devices last reported them; a dashed box is a neighbour that is no device of this network.</figcaption></figure>`;
}
