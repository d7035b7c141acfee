import { describe, expect, it } from '@jest/globals';
import { searchTerms } from '../../../../src/domain/content/search-terms.ts';

describe('searchTerms', () => {
  it('takes the words of a query, phrases whole and by word', () => {
    expect(searchTerms('install  docker')).toEqual(['install', 'docker']);
    expect(searchTerms('"getting started" guide')).toEqual(['getting started', 'getting', 'started', 'guide']);
    expect(searchTerms('"unterminated phrase')).toEqual(['unterminated phrase', 'unterminated', 'phrase']);
  });

  it('leaves out excluded words, the or operator and punctuation', () => {
    expect(searchTerms('api or sdk -legacy -"old way" node.js!')).toEqual(['api', 'sdk', 'node', 'js']);
    expect(searchTerms('   ')).toEqual([]);
    expect(searchTerms('OR')).toEqual([]);
  });

  it('keeps letters of any script', () => {
    expect(searchTerms('café über-cool')).toEqual(['café', 'über', 'cool']);
  });
});
