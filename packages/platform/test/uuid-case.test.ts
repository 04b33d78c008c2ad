import { operationById } from '@catalog/contracts';
import { newId, requestChecks } from '@catalog/platform';

/**
 * Ids are lower-cased once, by the operation's request checks: the path's ids and every field its
 * schemas declare a uuid (in the query, in the body, in arrays), and nothing else.
 */
describe('ids at the operation boundary', () => {
  const tenantId = newId();
  const [a, b, c] = [newId(), newId(), newId()];
  const up = (id: string) => id.toUpperCase();

  test('the path id and a body id of createRelation come out in lower case; free text stays as written', () => {
    const checked = requestChecks(operationById('createRelation'))(
      { params: { id: up(a) }, body: { type: 'remix_of', targetId: up(b), attributes: { note: up(c) } } },
      tenantId,
    );
    expect(checked.params).toEqual({ id: a });
    expect(checked.body).toEqual({ type: 'remix_of', targetId: b, attributes: { note: up(c) } });
  });

  test("every element's entity id of a molecule, and a uuid of the query (the library's relatedTo)", () => {
    const molecule = requestChecks(operationById('createMolecule'))(
      { body: { title: 'Hour', elements: [{ entityId: up(a) }, { entityId: up(b), offsetMs: 5 }] } },
      tenantId,
    );
    expect(molecule.body).toEqual({ title: 'Hour', elements: [{ entityId: a }, { entityId: b, offsetMs: 5 }] });
    const tracks = requestChecks(operationById('listTracks'))({ query: { relatedTo: up(c), q: 'ABC' } }, tenantId);
    expect(tracks.query).toMatchObject({ relatedTo: c, q: 'ABC' });
  });
});
