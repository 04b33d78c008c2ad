import { fieldDetails } from '@catalog/platform';

describe('field details', () => {
  test('the first 20 fields with a count of all, each path cut to 200 characters; fewer as they are', () => {
    const issue = (path: string) => ({ location: 'body' as const, path, message: 'is not a known field' });
    expect(fieldDetails([issue('/a')])).toEqual({ fields: [issue('/a')] });
    const many = Array.from({ length: 25 }, (_, i) => issue(`/k${i}`));
    expect(fieldDetails(many)).toEqual({ fields: many.slice(0, 20), fieldCount: 25 });
    const [cut] = fieldDetails([issue(`/${'x'.repeat(1000)}`)]).fields;
    expect(cut!.path).toHaveLength(200);
    expect(cut!.path.endsWith('…')).toBe(true);
  });
});
