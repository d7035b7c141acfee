import { describe, expect, it } from '@jest/globals';
import { classifyGitFailure, describeRepository, redactText } from '../../../../src/domain/git/errors.ts';

describe('git failures', () => {
  const shown = 'https://git.example/acme/docs.git';
  it.each([
    ["fatal: couldn't find remote ref refs/heads/nope", 'BAD_REF'],
    ["fatal: Authentication failed for 'https://git.example/acme/docs.git/'", 'AUTH_REFUSED'],
    ["fatal: could not read Username for 'https://git.example': terminal prompts disabled", 'AUTH_REFUSED'],
    ["fatal: repository 'https://git.example/acme/docs.git/' not found", 'REPOSITORY_NOT_FOUND'],
    ["fatal: unable to access 'https://git.example/': Could not resolve host: git.example", 'UNREACHABLE'],
    [
      "fatal: unable to access 'http://127.0.0.1:1/x.git/': Failed to connect to 127.0.0.1 port 1 after 0 ms: Couldn't connect to server",
      'UNREACHABLE',
    ],
    [' ! [rejected]        abc -> main (fetch first)\nerror: failed to push some refs', 'PUSH_REJECTED'],
    ['fatal: something else entirely', 'GIT_ERROR'],
  ])('reads %j as %s', (stderr, code) => {
    const error = classifyGitFailure(stderr, shown, 'refs/heads/main');
    expect(error.code).toBe(code);
    expect(error.message).toContain(code === 'BAD_REF' ? 'refs/heads/main' : 'git.example');
  });

  it('never shows credentials', () => {
    expect(redactText("fatal: unable to access 'https://bob:hunter2@git.example/x.git/': 403")).toBe(
      "fatal: unable to access 'https://***@git.example/x.git/': 403",
    );
    expect(redactText('http.extraHeader=Authorization: Basic Ym9iOmh1bnRlcjI=')).toBe('http.extraHeader=Authorization: ***');
    expect(classifyGitFailure('fatal: weird https://bob:hunter2@git.example/x', shown, 'r').message).not.toContain('hunter2');
  });

  it('names repositories and providers', () => {
    expect(describeRepository('https://github.com/acme/docs.git')).toEqual({ repoName: 'acme/docs', provider: 'github' });
    expect(describeRepository('https://gitlab.example.com/group/sub/docs')).toEqual({ repoName: 'group/sub/docs', provider: 'gitlab' });
    expect(describeRepository('http://127.0.0.1:8080/sample.git')).toEqual({ repoName: 'sample', provider: 'git' });
  });
});
