/** Every workflow the worker runs. Workflow code is deterministic: all I/O lives in activities. */
export { spaceDeletion } from './space-deletion.ts';
export { openapiProcessing } from './openapi-processing.ts';
export { changeRequestMerge, changeRequestUpdate } from './change-request-merge.ts';
export { pdfExport } from './pdf-export.ts';
export { contentImport } from './content-import.ts';
export { gitSync } from './git-sync.ts';
export { searchIndex } from './search-index.ts';
export { blobCollection } from './blob-collection.ts';
export { integrationEvents, integrationEventsSweep } from './integration-events.ts';
export { integrationTask } from './integration-task.ts';
