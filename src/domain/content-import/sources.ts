/**
 * The sources content can be imported from (GitBook's `ImportContentSource`), and which of them
 * this service reads itself. Pure: no I/O.
 */

export const IMPORT_SOURCES = ['website', 'docx', 'markdown', 'html', 'zip', 'confluence', 'github-wiki', 'notion', 'google-docs'] as const;
export type ImportSource = (typeof IMPORT_SOURCES)[number];

/** Sources read by this service. */
export const SUPPORTED_SOURCES = ['website', 'docx', 'markdown', 'html', 'zip', 'github-wiki'] as const;
export type SupportedSource = (typeof SUPPORTED_SOURCES)[number];

/** Sources behind a vendor's API and its OAuth: they need a third-party connector. */
export const CONNECTOR_SOURCES: Record<string, string> = {
  confluence: 'Confluence',
  notion: 'Notion',
  'google-docs': 'Google Docs',
};

export function isSupportedSource(source: string): source is SupportedSource {
  return (SUPPORTED_SOURCES as readonly string[]).includes(source);
}

/** Why a source cannot be imported here, or null when it can. */
export function unsupportedReason(source: string): string | null {
  if (isSupportedSource(source)) return null;
  const vendor = CONNECTOR_SOURCES[source];
  if (vendor !== undefined) {
    return `Importing from ${vendor} (source "${source}") needs a third-party connector (the vendor's API with OAuth access to the workspace), which this service does not include; export the content as zip, docx, html or markdown and import that instead`;
  }
  return `Unknown import source "${source}"; use one of ${SUPPORTED_SOURCES.join(', ')}`;
}

/**
 * The git URL of a GitHub-style wiki: `https://github.com/o/r/wiki` (or any page under it) is the
 * repository `https://github.com/o/r.wiki.git`; a URL already ending in `.git` is used as given.
 * Null when the URL names no wiki repository.
 */
export function wikiRepositoryUrl(input: string): string | null {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return null;
  }
  url.hash = '';
  url.search = '';
  const path = url.pathname.replace(/\/+$/, '');
  if (path.endsWith('.git')) {
    url.pathname = path;
    return url.href;
  }
  const wiki = /^(.*?)\/wiki(\/.*)?$/.exec(path);
  if (wiki && wiki[1] !== '') {
    url.pathname = `${wiki[1]}.wiki.git`;
    return url.href;
  }
  return null;
}

/** The context a sealed import URL (one carrying credentials) is bound to: it only opens for that space. */
export const sealContext = (spaceId: string) => `content-import/${spaceId}`;
