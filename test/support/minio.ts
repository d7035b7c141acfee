import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';

/** A MinIO server of one test file: its own data directory, port, credentials and bucket. */
export interface TestMinio {
  endpoint: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The environment selecting this server as the blob store (BLOB_STORE=s3, S3_*). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/** MINIO_PATH, else `minio` under $GOPATH/bin (~/go/bin), where `go install github.com/minio/minio@latest` puts it. */
export function minioPath(): string {
  const candidates = [process.env.MINIO_PATH, join(process.env.GOPATH || join(homedir(), 'go'), 'bin', 'minio')].filter(
    (p): p is string => !!p,
  );
  const found = candidates.find((p) => existsSync(p));
  if (!found) {
    throw new Error(
      `The S3 tests need a MinIO server binary and none was found (looked at ${candidates.join(', ')}). ` +
        'Build it once with `go install github.com/minio/minio@latest` (Go 1.24+; about 5 minutes; .ci/run does it and caches it), ' +
        'or set MINIO_PATH to an existing minio binary.',
    );
  }
  return found;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitReady(endpoint: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`minio exited with ${child.exitCode}:\n${output()}`);
    try {
      const res = await fetch(`${endpoint}/minio/health/ready`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`minio did not become ready within 60s:\n${output()}`);
}

/** Starts `minio server <tmpdir>` on a free port of 127.0.0.1 and creates a bucket. */
export async function startMinio(bucket = 'docs-test'): Promise<TestMinio> {
  const binary = minioPath();
  const dataDir = await mkdtemp(join(tmpdir(), 'docs-minio-'));
  const [port, consolePort] = [await freePort(), await freePort()];
  const accessKeyId = `test${randomBytes(6).toString('hex')}`;
  const secretAccessKey = randomBytes(18).toString('hex');
  const endpoint = `http://127.0.0.1:${port}`;
  let log = '';
  const child = spawn(
    binary,
    ['server', dataDir, '--address', `127.0.0.1:${port}`, '--console-address', `127.0.0.1:${consolePort}`, '--quiet'],
    {
      env: { ...process.env, MINIO_ROOT_USER: accessKeyId, MINIO_ROOT_PASSWORD: secretAccessKey, MINIO_BROWSER: 'off' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    await waitReady(endpoint, child, () => log);
    const s3 = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId, secretAccessKey } });
    await s3.send(new CreateBucketCommand({ Bucket: bucket }));
    s3.destroy();
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    endpoint,
    bucket,
    accessKeyId,
    secretAccessKey,
    env: {
      BLOB_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_ACCESS_KEY_ID: accessKeyId,
      S3_SECRET_ACCESS_KEY: secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    stop,
  };
}
