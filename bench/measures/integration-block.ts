/**
 * `integration-block`: what one integration block adds to reading a page. GitBook's renderer reads
 * a page's document, then asks the integration to render each of its blocks
 * (`renderIntegrationUIWithPost`), which runs the integration's script in the API process's
 * sandbox (workerd). Measured one request at a time against the stack's API, as a member: the
 * document read of a page holding one block of a trivial integration built with @gitbook/runtime,
 * then the same read followed by the block's render; the row is the added p50 (the render), its
 * baseline the p50 of the read alone, both in the same run, interleaved.
 */
import { median, percentile, timedClient } from '../lib.ts';
import type { RunOptions, Row } from '../load.ts';
import type { Stack } from '../stack.ts';
import { bundleIntegration } from '../../test/support/integration-bundle.ts';

const SOURCE = `
import { createComponent, createIntegration } from '@gitbook/runtime';
const note = createComponent({
  componentId: 'note',
  render: async (element) => ({ type: 'block', children: [{ type: 'text', children: 'Note: ' + element.props.text }] }),
});
export default createIntegration({ components: [note] });
`;

export async function measureIntegrationBlock(stack: Stack, options: RunOptions, log: (line: string) => void): Promise<Row[]> {
  const reads = options.quick ? 40 : 300;
  const name = `bench-block-${stack.runId}`.toLowerCase();
  await stack.call('POST', `/v1/integrations/${name}`, {
    title: 'Bench block',
    description: 'Draws a note',
    script: await bundleIntegration(SOURCE),
    organization: stack.orgId,
    visibility: 'private',
    scopes: ['space:content:read'],
    blocks: [{ id: 'note', title: 'Note' }],
  });
  const installation = await stack.call('POST', `/v1/integrations/${name}/installations`, { organization: stack.orgId });
  const space = await stack.call('POST', `/v1/orgs/${stack.orgId}/spaces`, { title: 'Integration block benchmark' });
  await stack.call('PATCH', `/v1/integrations/${name}/installations/${installation.id}/spaces/${space.id}`, { configuration: {} });
  const cr = await stack.call('POST', `/v1/spaces/${space.id}/change-requests`, { subject: 'A page with a block' });
  const paragraphs = Array.from(
    { length: 20 },
    (_, i) => `Paragraph ${i} of the page, with **some** words and a [link](https://example.com/${i}).`,
  );
  const markdown = `${paragraphs.slice(0, 10).join('\n\n')}\n\n{% @${name}/note text="read me" %}\n\n${paragraphs.slice(10).join('\n\n')}\n`;
  await stack.call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/content?compat=false`, {
    changes: [{ operation: 'insert_page', title: 'With a block', document: { markdown } }],
  });
  const merged = await stack.call('POST', `/v1/spaces/${space.id}/change-requests/${cr.id}/merge`);
  if (merged.result !== 'merge') throw new Error(`integration-block: the page was not merged (${JSON.stringify(merged)})`);
  const pages = await stack.call('GET', `/v1/spaces/${space.id}/content/pages`);
  const pageId: string = pages.pages.find((p: { title: string }) => p.title === 'With a block').id;

  const client = timedClient(stack.api.url);
  const auth = { authorization: `Bearer ${stack.token}` };
  const documentPath = `/v1/spaces/${space.id}/content/page/${pageId}?format=document`;
  const readDocument = async () => {
    const res = await client.request('GET', documentPath, auth);
    if (res.status !== 200) throw new Error(`integration-block: the page read answered ${res.status}`);
    return res;
  };
  const renderBlock = async (props: unknown) => {
    const res = await client.request(
      'POST',
      `/v1/integrations/${name}/render`,
      { ...auth, 'content-type': 'application/json' },
      JSON.stringify({ componentId: 'note', props, context: { type: 'document', spaceId: space.id, editable: false, theme: 'light' } }),
    );
    if (res.status !== 200) throw new Error(`integration-block: the render answered ${res.status}: ${res.body.toString()}`);
    return res;
  };
  const added: number[] = [];
  const alone: number[] = [];
  try {
    // Warm: the document converted and kept, the integration's instance started in the API's sandbox.
    const first = await readDocument();
    const block = (JSON.parse(first.body.toString()).document.nodes as { type: string; data: { props: unknown } }[]).find(
      (n) => n.type === 'integration',
    );
    if (!block) throw new Error('integration-block: the page has no integration block');
    for (let i = 0; i < 20; i++) await renderBlock(block.data.props);
    for (let round = 0; round < options.rounds; round++) {
      const readOnly = new Float64Array(reads);
      const withBlock = new Float64Array(reads);
      for (let i = 0; i < reads; i++) {
        readOnly[i] = (await readDocument()).ms;
        const read = await readDocument();
        withBlock[i] = read.ms + (await renderBlock(block.data.props)).ms;
      }
      readOnly.sort();
      withBlock.sort();
      const base = percentile(readOnly, 50);
      alone.push(base);
      added.push(percentile(withBlock, 50) - base);
      log(`integration-block: round ${round + 1}: read p50 ${base.toFixed(2)} ms, with its block rendered +${added.at(-1)!.toFixed(2)} ms`);
    }
  } finally {
    await client.close();
  }
  const value = median(added);
  const baselineValue = median(alone);
  return [
    {
      measure:
        "added p50 of a page document read with one integration block: the renderer's render of the block (workerd, in the API process)",
      value,
      unit: 'ms',
      baseline: 'p50 of the same page document read without rendering its block',
      baselineValue,
      ratio: baselineValue / (baselineValue + value),
      target: 'reported',
      met: null,
      note: `${reads} reads per round, one at a time, interleaved; ratio: the read alone against the read and the render`,
      perRound: added.map((a, i) => alone[i] / (alone[i] + a)),
    },
  ];
}
