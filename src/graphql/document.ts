import { GraphQLError, Kind, NoSchemaIntrospectionCustomRule, parse, specifiedRules, validate, visit } from 'graphql';
import type {
  ASTVisitor,
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLSchema,
  OperationDefinitionNode,
  ValidationContext,
  ValidationRule,
} from 'graphql';

/** Static limits on a document, checked before anything runs. */
export interface DocumentLimits {
  readonly maxTokens: number;
  readonly maxDepth: number;
  readonly maxAliases: number;
  readonly maxDirectives: number;
}

export const DEFAULT_DOCUMENT_LIMITS: DocumentLimits = {
  maxTokens: 5000,
  maxDepth: 12,
  maxAliases: 50,
  maxDirectives: 50,
};

/** A parsed and validated document, ready to plan; or the errors that stop it. */
export interface PreparedDocument {
  readonly errors: readonly GraphQLError[];
  readonly document?: DocumentNode;
  readonly operations: ReadonlyMap<string, OperationDefinitionNode>;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Per-operation state that callers cache with the document (plans, compiled SQL). */
  readonly memo: Map<string, unknown>;
}

const EMPTY_MAP = new Map<never, never>();

/**
 * Parses and validates query strings once and keeps the result, so repeated
 * documents (the common case for scripts and integrations) skip both steps.
 * Bounded: the least recently used entry goes first.
 */
export class DocumentCache {
  private readonly entries = new Map<string, PreparedDocument>();
  private readonly rules: readonly ValidationRule[];

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limits: DocumentLimits = DEFAULT_DOCUMENT_LIMITS,
    private readonly maxEntries = 1000,
  ) {
    this.rules = [
      ...specifiedRules,
      NoSchemaIntrospectionCustomRule,
      createDepthLimitRule(limits.maxDepth),
      createCountLimitRule('aliases', limits.maxAliases, (node) => node.kind === Kind.FIELD && node.alias !== undefined),
      createCountLimitRule('directives', limits.maxDirectives, (node) => node.kind === Kind.DIRECTIVE),
    ];
  }

  /** The prepared form of `query`, from the cache when it was seen before. */
  get(query: string): PreparedDocument {
    const cached = this.entries.get(query);
    if (cached !== undefined) {
      this.entries.delete(query);
      this.entries.set(query, cached);
      return cached;
    }
    const prepared = this.prepare(query);
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(query, prepared);
    return prepared;
  }

  private prepare(query: string): PreparedDocument {
    let document: DocumentNode;
    try {
      document = parse(query, { maxTokens: this.limits.maxTokens, noLocation: false });
    } catch (error) {
      const parseError =
        error instanceof GraphQLError ? withLimitWording(error, this.limits.maxTokens) : new GraphQLError(String(error));
      return failed([parseError]);
    }
    const errors = validate(this.schema, document, this.rules, { maxErrors: 20 });
    if (errors.length > 0) return failed(errors.map((error) => namingArgument(withoutSuggestions(error), document)));
    const operations = new Map<string, OperationDefinitionNode>();
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.OPERATION_DEFINITION) operations.set(definition.name?.value ?? '', definition);
      else if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    return { errors: [], document, operations, fragments, memo: new Map() };
  }
}

function failed(errors: readonly GraphQLError[]): PreparedDocument {
  return { errors, operations: EMPTY_MAP, fragments: EMPTY_MAP, memo: new Map() };
}

/**
 * Removes "Did you mean …?" hints: they would reveal names of a schema that
 * is not introspectable.
 */
export function stripSuggestions(message: string): string {
  return message.replace(/\s*Did you mean [^?]*\?/g, '');
}

function withoutSuggestions(error: GraphQLError): GraphQLError {
  const message = stripSuggestions(error.message);
  if (message === error.message) return error;
  return new GraphQLError(message, { nodes: error.nodes ?? null, source: error.source ?? null, positions: error.positions ?? null });
}

/**
 * A literal argument value the scalar refused becomes BAD_USER_INPUT naming
 * the argument, e.g. `Argument "UUID" has an invalid value "abc": Expected a UUID…`.
 */
function namingArgument(error: GraphQLError, document: DocumentNode): GraphQLError {
  const match = /^Expected value of type "[^"]+", found (.*?); (.*)$/s.exec(error.message);
  const valueNode = error.nodes?.[0];
  if (!match || !valueNode?.loc) return error;
  const start = valueNode.loc.start;
  let argument: string | undefined;
  visit(document, {
    Argument(node) {
      if (node.value.loc && node.value.loc.start <= start && start < node.value.loc.end) argument = node.name.value;
    },
  });
  if (argument === undefined) return error;
  return new GraphQLError(`Argument "${argument}" has an invalid value ${match[1]}: ${match[2]}`, {
    nodes: error.nodes ?? null,
    extensions: { code: 'BAD_USER_INPUT', argument },
  });
}

function withLimitWording(error: GraphQLError, maxTokens: number): GraphQLError {
  if (!/token limit/i.test(error.message)) return error;
  return new GraphQLError(`Syntax Error: The document has more than the limit of ${maxTokens} tokens.`, {
    source: error.source ?? null,
    positions: error.positions ?? null,
  });
}

/** Fails operations nested deeper than `maxDepth` fields (fragments counted where they are spread). */
function createDepthLimitRule(maxDepth: number): ValidationRule {
  return (context: ValidationContext): ASTVisitor => ({
    OperationDefinition(operation) {
      const fragments = new Map<string, FragmentDefinitionNode>();
      for (const definition of context.getDocument().definitions) {
        if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
      }
      const depth = measureDepth(operation.selectionSet.selections, fragments, new Set(), 0, maxDepth + 1);
      if (depth > maxDepth) {
        context.reportError(
          new GraphQLError(`The operation is nested deeper than the limit of ${maxDepth} levels.`, { nodes: operation }),
        );
      }
      return false;
    },
  });
}

type Selections = OperationDefinitionNode['selectionSet']['selections'];

function measureDepth(
  selections: Selections,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  seen: Set<string>,
  depth: number,
  stopAt: number,
): number {
  let max = depth;
  for (const selection of selections) {
    if (max >= stopAt) return max;
    if (selection.kind === Kind.FIELD) {
      const below = selection.selectionSet
        ? measureDepth(selection.selectionSet.selections, fragments, seen, depth + 1, stopAt)
        : depth + 1;
      max = Math.max(max, below);
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      max = Math.max(max, measureDepth(selection.selectionSet.selections, fragments, seen, depth, stopAt));
    } else {
      const fragment = fragments.get(selection.name.value);
      if (!fragment || seen.has(fragment.name.value)) continue;
      seen.add(fragment.name.value);
      max = Math.max(max, measureDepth(fragment.selectionSet.selections, fragments, seen, depth, stopAt));
      seen.delete(fragment.name.value);
    }
  }
  return max;
}

/** Fails documents with more than `limit` nodes of a kind (aliases, directives). */
function createCountLimitRule(
  what: string,
  limit: number,
  counts: (node: { kind: Kind; alias?: unknown }) => boolean,
): ValidationRule {
  return (context: ValidationContext): ASTVisitor => {
    let count = 0;
    let reported = false;
    const visit = (node: { kind: Kind; alias?: unknown }) => {
      if (reported || !counts(node)) return;
      count += 1;
      if (count > limit) {
        reported = true;
        context.reportError(new GraphQLError(`The document has more than the limit of ${limit} ${what}.`));
      }
    };
    return { Field: visit, Directive: visit };
  };
}
