/**
 * /teams (docs/api.md "Teams"): list, create, read, rename and delete an org's teams, and add or remove members.
 * Teams hold role bindings (/role-bindings with `subject_type: team`); a member's permissions include its teams'
 * bindings (`POST /auth/can-i` names the binding that grants).
 */
import type { FastifyInstance } from 'fastify';
import { orgCaller } from '../context.ts';
import { errorAnswers, IdParams } from '../route-schemas.ts';
import type { ApiServices } from '../services.ts';
import { TeamService, teamBindingView } from '../teams/service.ts';

const TeamObject = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    created_at: { type: 'string' },
    updated_at: { type: ['string', 'null'] },
    member_count: { type: 'integer' },
  },
} as const;

const MemberObject = {
  type: 'object',
  properties: {
    user_id: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    added_at: { type: ['string', 'null'] },
  },
} as const;

const TeamDetail = {
  type: 'object',
  properties: {
    ...TeamObject.properties,
    members: { type: 'array', items: MemberObject },
    bindings: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          scope: { type: 'string' },
          scope_id: { type: 'string' },
          level: { type: 'string' },
          created_at: { type: 'string' },
        },
      },
    },
  },
} as const;

const NameBody = {
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 100 } },
} as const;

const MEANINGS = {
  404: 'no such team (or user) in this organization',
  409: 'a team of that name exists, the user is already a member, or the org would lose its last team',
};

/** Registers the /teams routes (`team:read` to read, `team:manage` to change). */
export async function teamRoutes(app: FastifyInstance, services: ApiServices): Promise<void> {
  const teams = new TeamService(services);

  app.get(
    '/teams',
    {
      schema: {
        tags: ['teams'],
        summary: "The caller org's teams",
        response: {
          200: { type: 'object', properties: { teams: { type: 'array', items: TeamObject } } },
          ...errorAnswers(),
        },
      },
    },
    async (request) => ({ teams: await teams.list(orgCaller(request)) }),
  );

  app.post<{ Body: { name: string } }>(
    '/teams',
    {
      schema: {
        tags: ['teams'],
        summary: 'Create a team (audited team.create)',
        body: NameBody,
        response: { 201: TeamObject, ...errorAnswers({ body: true, also: [409], meanings: MEANINGS }) },
      },
    },
    async (request, reply) => reply.code(201).send(await teams.create(orgCaller(request), request.body.name)),
  );

  app.get<{ Params: { id: string } }>(
    '/teams/:id',
    {
      schema: {
        tags: ['teams'],
        summary: 'A team with its members and role bindings',
        params: IdParams,
        response: { 200: TeamDetail, ...errorAnswers({ also: [404], meanings: MEANINGS }) },
      },
    },
    async (request) => {
      const team = await teams.get(orgCaller(request), request.params.id);
      return { ...team, bindings: team.bindings.map(teamBindingView) };
    },
  );

  app.patch<{ Params: { id: string }; Body: { name: string } }>(
    '/teams/:id',
    {
      schema: {
        tags: ['teams'],
        summary: 'Rename a team (audited team.update)',
        params: IdParams,
        body: NameBody,
        response: { 200: TeamObject, ...errorAnswers({ body: true, also: [404, 409], meanings: MEANINGS }) },
      },
    },
    async (request) => teams.rename(orgCaller(request), request.params.id, request.body.name),
  );

  app.delete<{ Params: { id: string } }>(
    '/teams/:id',
    {
      schema: {
        tags: ['teams'],
        summary: "Delete a team, its memberships and its role bindings (audited team.delete); 409 for the org's last",
        params: IdParams,
        response: {
          200: { type: 'object', properties: { deleted: { type: 'boolean' } } },
          ...errorAnswers({ also: [404, 409], meanings: MEANINGS }),
        },
      },
    },
    async (request) => {
      await teams.remove(orgCaller(request), request.params.id);
      return { deleted: true };
    },
  );

  app.post<{ Params: { id: string }; Body: { user_id: string } }>(
    '/teams/:id/members',
    {
      schema: {
        tags: ['teams'],
        summary: 'Add a member of the org to the team (audited team.member.add)',
        params: IdParams,
        body: {
          type: 'object',
          additionalProperties: false,
          required: ['user_id'],
          properties: { user_id: { type: 'string', minLength: 1, maxLength: 128 } },
        },
        response: { 201: MemberObject, ...errorAnswers({ body: true, also: [404, 409], meanings: MEANINGS }) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await teams.addMember(orgCaller(request), request.params.id, request.body.user_id)),
  );

  app.delete<{ Params: { id: string; userId: string } }>(
    '/teams/:id/members/:userId',
    {
      schema: {
        tags: ['teams'],
        summary: 'Remove a user from the team (audited team.member.remove)',
        params: {
          type: 'object',
          required: ['id', 'userId'],
          properties: { id: { type: 'string', minLength: 1 }, userId: { type: 'string', minLength: 1 } },
        },
        response: {
          200: { type: 'object', properties: { removed: { type: 'boolean' } } },
          ...errorAnswers({ also: [404], meanings: MEANINGS }),
        },
      },
    },
    async (request) => {
      await teams.removeMember(orgCaller(request), request.params.id, request.params.userId);
      return { removed: true };
    },
  );
}
