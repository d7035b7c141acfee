/**
 * The `search-index` job: started by the change-request merge and content-import workflows (as an
 * abandoned child), never by the API. Operators find its runs in the Temporal UI under
 * `WorkflowId STARTS_WITH "search-index/<spaceId>"`.
 */
export { searchIndexWorkflowId } from '../workflows/search-index.ts';
