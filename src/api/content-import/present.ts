/** The import result GitBook's API answers: the revision written and how much of the source it holds. */
export function presentImportResult(outcome: { revision: string; importedResources: number; totalResources: number }) {
  return { revision: outcome.revision, importedResources: outcome.importedResources, totalResources: outcome.totalResources };
}
