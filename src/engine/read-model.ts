import type { FieldMapping, GraphQLFeature, ReadModel, RootDefinition } from './read.model.js';
import { FEATURES } from './features.js';

/**
 * The features' read models and roots, merged into one; throws naming every
 * field or root that two features declare. (graphql/assemble.ts checks the
 * result against the schema.)
 */
export function buildReadModel(features: readonly GraphQLFeature<never>[]): ReadModel {
  const problems: string[] = [];
  const types: Record<string, Record<string, FieldMapping>> = {};
  const roots: Record<string, RootDefinition> = {};
  const internalRoots: Record<string, RootDefinition> = {};
  for (const feature of features) {
    for (const [typeName, fields] of Object.entries(feature.readModel)) {
      addOnce((types[typeName] ??= {}), fields, (name) => problems.push(`read model: ${typeName}.${name} is mapped twice`));
    }
    addOnce(roots, feature.roots, (name) => problems.push(`read model: the root ${name} is declared twice`));
    addOnce(internalRoots, feature.internalRoots, (name) => problems.push(`read model: the root ${name} is declared twice`));
  }
  for (const name of Object.keys(internalRoots)) if (Object.hasOwn(roots, name)) problems.push(`read model: the root ${name} is declared twice`);
  throwIfAny(problems);
  return { types, roots, internalRoots };
}

/** The read model of every feature of graphql/features.ts, the one the server's reads compile with. */
export function createReadModel(): ReadModel {
  return buildReadModel(FEATURES);
}

/** Adds `entries` to `into`, calling `onTwice` for each name `into` holds already. */
export function addOnce<T>(into: Record<string, T>, entries: Readonly<Record<string, T>>, onTwice: (name: string) => void): void {
  for (const [name, value] of Object.entries(entries)) {
    if (Object.hasOwn(into, name)) onTwice(name);
    into[name] = value;
  }
}

/** Throws one error naming every problem, when there is any. */
export function throwIfAny(problems: readonly string[]): void {
  if (problems.length > 0) throw new Error(problems.join('\n'));
}
