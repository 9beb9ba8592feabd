import { describe, expect, it } from 'vitest';
import { pipelineStages } from '../../shared/policy/permissions/shell/pipelineStages.js';

describe('pipelineStages', () => {
  it.each([
    ['node --test 2>&1 | tail -5', ['node --test', 'tail -5']],
    ['npm  test 2>&1 | tee log', ['npm test', 'tee log']],
    ['node --test', ['node --test']],
    ['node --test > out.txt 2>&1', ['node --test']],
    ['FOO=1 node --test 2>/dev/null|head -3', ['FOO=1 node --test', 'head -3']],
    ['npm test 2>&1 | tail -50 # the end', ['npm test', 'tail -50']],
  ])('splits %j into its stages, without redirections of their own output', (command, stages) => {
    expect(pipelineStages(command)).toEqual(stages);
  });

  it('keeps what changes what runs: input redirections, other descriptors, subshells', () => {
    expect(pipelineStages('node --test < input.txt | tail')).toEqual(['node --test < input.txt', 'tail']);
    expect(pipelineStages('node --test 3>&1 | tail')).toEqual(['node --test 3>&1', 'tail']);
    expect(pipelineStages('(cd a && npm test) | tail')).toEqual(['(cd a && npm test)', 'tail']);
  });

  it('gives no stages for what is not one pipeline, or does not parse', () => {
    expect(pipelineStages('npm run build && npm test | tail')).toBeUndefined();
    expect(pipelineStages('npm test; echo done')).toBeUndefined();
    expect(pipelineStages('for f in a b; do echo $f; done')).toBeUndefined();
    expect(pipelineStages('echo "unterminated')).toBeUndefined();
  });
});
