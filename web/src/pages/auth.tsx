/** Sign-in and sign-up, through the auth component (/api/auth/*). */
import { Link, useNavigate, useSearch } from '@tanstack/react-router';
import { type FormEvent, useState } from 'react';
import { useSignIn, useSignUp } from '../api/session.ts';
import { Button } from '../components/ui/button.tsx';
import { ErrorState } from '../components/ui/feedback.tsx';
import { Field, Input } from '../components/ui/field.tsx';

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <div className="mx-auto mt-10 max-w-sm rounded-lg border border-zinc-200 p-6 dark:border-zinc-800">
      <h1 className="mb-4 text-xl font-semibold">{title}</h1>
      {children}
    </div>
  );
}

/** Only same-site paths are followed after sign-in. */
function safeRedirect(to: string | undefined): string {
  return to?.startsWith('/') && !to.startsWith('//') ? to : '/apps';
}

export function SignInPage() {
  const search = useSearch({ from: '/sign-in' });
  const signIn = useSignIn();
  const navigate = useNavigate();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signIn.mutate({ email, password }, { onSuccess: () => navigate({ href: safeRedirect(search.redirect) }) });
  };
  return (
    <Card title="Sign in">
      <form onSubmit={submit} className="space-y-3">
        <Field label="Email">
          {(p) => (
            <Input
              {...p}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(p) => (
            <Input
              {...p}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        {signIn.error ? <ErrorState error={signIn.error} title="Sign-in failed" /> : null}
        <Button type="submit" variant="primary" className="w-full" disabled={signIn.isPending}>
          Sign in
        </Button>
      </form>
      <p className="mt-4 text-sm">
        No account? <Link to="/sign-up">Sign up</Link>
      </p>
    </Card>
  );
}

export function SignUpPage() {
  const signUp = useSignUp();
  const navigate = useNavigate();
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const submit = (e: FormEvent) => {
    e.preventDefault();
    signUp.mutate({ name, email, password }, { onSuccess: () => navigate({ to: '/orgs/new' }) });
  };
  return (
    <Card title="Create your account">
      <form onSubmit={submit} className="space-y-3">
        <Field label="Name">
          {(p) => <Input {...p} autoComplete="name" required value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Email">
          {(p) => (
            <Input
              {...p}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password" hint="At least 8 characters.">
          {(p) => (
            <Input
              {...p}
              type="password"
              autoComplete="new-password"
              minLength={8}
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        {signUp.error ? <ErrorState error={signUp.error} title="Sign-up failed" /> : null}
        <Button type="submit" variant="primary" className="w-full" disabled={signUp.isPending}>
          Sign up
        </Button>
      </form>
      <p className="mt-4 text-sm">
        Have an account?{' '}
        <Link to="/sign-in" search={{}}>
          Sign in
        </Link>
      </p>
    </Card>
  );
}
