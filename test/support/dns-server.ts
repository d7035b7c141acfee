import { createSocket } from 'node:dgram';

/**
 * A small authoritative DNS server on 127.0.0.1 (UDP) for the custom hostname checks: it answers
 * the names of `records` with their CNAME or A records (an A query of a CNAME is answered with the
 * CNAME and the A records of its target, as a recursive resolver would), NODATA for a known name
 * without records of the type asked, NXDOMAIN for an unknown name, and nothing at all for the
 * names in `silent` (the resolver runs out of time).
 */

export interface DnsRecords {
  cname?: string;
  a?: string[];
}

export interface DnsServer {
  /** The server's address as DNS_SERVERS takes it: `127.0.0.1:<port>`. */
  address: string;
  records: Map<string, DnsRecords>;
  silent: Set<string>;
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_CNAME = 5;

function encodeName(name: string): Buffer {
  const labels = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l, 'ascii')])), Buffer.from([0])]);
}

/** The question's name (labels without compression, as resolvers send them) and where the question ends. */
function readQuestion(message: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let at = 12;
  while (message[at] !== 0) {
    labels.push(message.subarray(at + 1, at + 1 + message[at]).toString('ascii'));
    at += message[at] + 1;
  }
  return { name: labels.join('.').toLowerCase(), type: message.readUInt16BE(at + 1), end: at + 5 };
}

function record(name: string, type: number, data: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2); // class IN
  fixed.writeUInt32BE(60, 4); // TTL
  fixed.writeUInt16BE(data.length, 8);
  return Buffer.concat([encodeName(name), fixed, data]);
}

function answer(query: Buffer, records: Map<string, DnsRecords>): Buffer {
  const { name, type, end } = readQuestion(query);
  const found = records.get(name);
  const answers: Buffer[] = [];
  if (found?.cname && (type === TYPE_CNAME || type === TYPE_A)) {
    answers.push(record(name, TYPE_CNAME, encodeName(found.cname)));
    const target = records.get(found.cname.toLowerCase());
    if (type === TYPE_A) for (const a of target?.a ?? []) answers.push(record(found.cname, TYPE_A, Buffer.from(a.split('.').map(Number))));
  } else if (found && type === TYPE_A) {
    for (const a of found.a ?? []) answers.push(record(name, TYPE_A, Buffer.from(a.split('.').map(Number))));
  }
  const header = Buffer.alloc(12);
  query.copy(header, 0, 0, 2); // id
  // QR, authoritative, recursion desired (as asked) and available; NXDOMAIN for an unknown name.
  header.writeUInt16BE(0x8000 | 0x0400 | (query.readUInt16BE(2) & 0x0100) | 0x0080 | (found ? 0 : 3), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(answers.length, 6);
  return Buffer.concat([header, query.subarray(12, end), ...answers]);
}

export async function startDnsServer(): Promise<DnsServer> {
  const socket = createSocket('udp4');
  const records = new Map<string, DnsRecords>();
  const silent = new Set<string>();
  socket.on('message', (query, peer) => {
    if (query.length < 17 || silent.has(readQuestion(query).name)) return;
    socket.send(answer(query, records), peer.port, peer.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${socket.address().port}`,
    records,
    silent,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
