// The error reference's "answered today" list comes from the routes' declared errors.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain ES module of the generator, without type declarations
import { errnoRuns, renderAnswered } from './portal-errors-answered.mjs';

const catalogue = {
  A: { errno: 101 }, B: { errno: 102 }, C: { errno: 103 }, D: { errno: 105 }, E: { errno: 106 }, F: { errno: 999 }, G: { errno: 999 },
};
const op = (errnos: number[]) => ({ operationId: `op${errnos.join('')}`, 'x-errors': errnos.map((errno) => ({ errno })) });

describe('portal-errors-answered', () => {
  it('writes runs of linked errnos', () => {
    expect(errnoRuns([103, 101, 102, 105, 106, 999, 999])).toBe(
      '<a href="#errno-101">101</a>–<a href="#errno-103">103</a>, <a href="#errno-105">105</a>, <a href="#errno-106">106</a>, <a href="#errno-999">999</a>',
    );
  });

  it('lists what some route declares and what none does', () => {
    const md = renderAnswered(catalogue, { paths: { '/a': { get: op([101, 102]), post: op([999]) }, '/b': { put: op([106]) } } });
    expect(md).toContain('**Answered today** (4 of 6 errnos, declared by at least one of the 3 operations');
    expect(md).toContain('<a href="#errno-101">101</a>, <a href="#errno-102">102</a>, <a href="#errno-106">106</a>, <a href="#errno-999">999</a>.');
    expect(md).toContain('**Not answered by any route yet** (2; most belong to features not built yet): <a href="#errno-103">103</a>, <a href="#errno-105">105</a>.');
  });

  it('refuses an errno the catalogue does not have', () => {
    expect(() => renderAnswered(catalogue, { paths: { '/a': { get: op([404]) } } })).toThrow(/missing from the catalogue: 404/);
  });
});
