import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { link, mkdir, readFile, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Encryption of stored secrets (integration secrets) with AES-256-GCM. The key comes from
 * SECRETS_KEY (32 bytes, base64) or, when unset, from `${DATA_DIR}/secrets.key`, created once with
 * mode 0600. Sealed values carry their IV and tag; the `context` (for example the integration name)
 * is bound as additional data, so a sealed value copied to another row does not open.
 *
 * The key file's own mode is what keeps it private: DATA_DIR is created like every other directory
 * of the service (the umask's mode), because it also holds the embedded PostgreSQL's data, which
 * another user (`postgres`, when `npm start` runs as root) must be able to reach.
 */

const VERSION = 'v1';
const KEY_BYTES = 32;

export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
  /**
   * A secret of its own for `purpose` (32 bytes, base64url), derived from the key (HKDF-SHA256):
   * the same in every process that shares the key, and telling nothing of the key or of another purpose's.
   */
  derive(purpose: string): string;
}

export function secretBox(key: Buffer): SecretBox {
  if (key.length !== KEY_BYTES) throw new Error(`The secrets key must be ${KEY_BYTES} bytes`);
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return [VERSION, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, iv, tag, ciphertext] = sealed.split('.');
      if (version !== VERSION || iv === undefined || tag === undefined || ciphertext === undefined) {
        throw new Error('Not a sealed secret');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    },
    derive(purpose) {
      return Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), `docs-service derived secret: ${purpose}`, 32)).toString('base64url');
    },
  };
}

/** The key: SECRETS_KEY when set, else the key file under DATA_DIR (created on first use). */
export async function loadSecretsKey(config: { secretsKey: string | undefined; dataDir: string }): Promise<Buffer> {
  if (config.secretsKey !== undefined) return checked(Buffer.from(config.secretsKey, 'base64'), 'SECRETS_KEY');
  const file = join(config.dataDir, 'secrets.key');
  const existing = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing !== undefined) return checked(Buffer.from(existing.trim(), 'base64'), file);
  await mkdir(config.dataDir, { recursive: true });
  // Written whole to a file of its own, then linked into place: link() fails when the key file
  // exists, so concurrent first uses (API and worker) all end up with the key that won, never a partial file.
  const candidate = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  await writeFile(candidate, randomBytes(KEY_BYTES).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  try {
    await link(candidate, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(candidate).catch(() => {});
  }
  return checked(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64'), file);
}

function checked(key: Buffer, source: string): Buffer {
  if (key.length !== KEY_BYTES) throw new Error(`${source} must hold ${KEY_BYTES} bytes encoded in base64`);
  return key;
}

/** One box per configuration, created on first use. */
export function lazySecretBox(config: { secretsKey: string | undefined; dataDir: string }): () => Promise<SecretBox> {
  let box: Promise<SecretBox> | undefined;
  return () => {
    box ??= loadSecretsKey(config).then(secretBox, (error: unknown) => {
      box = undefined;
      throw error;
    });
    return box;
  };
}
